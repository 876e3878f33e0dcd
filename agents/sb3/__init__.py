"""The SB3 room: one checkpoint format (:mod:`.checkpoint`), the flat catalogue policy
(:mod:`.catalogue_policy`), the slot design (:mod:`.slots`) and :func:`.policies.load_sb3_policy`,
which loads any SB3 checkpoint as a policy by the design its sidecar names.

Nothing is imported here: torch and SB3 load only when a submodule is used.
"""
