"""Training scripts, CleanRL-shaped: one file per algorithm, each read top to bottom.

Each script has an ``Args`` dataclass whose field docstrings are its ``--help``
(:func:`vmb_agents.train.common.add_dataclass_arguments`), a seeding block, the loop and an
evaluation; ``vmb train NAME`` runs them. Nothing heavy is imported here.
"""
