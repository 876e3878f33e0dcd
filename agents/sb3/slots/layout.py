"""The slot layout: how many API, value and target slots an action names, and the index arithmetic.

Action ``2 + (a * N_VALUE_SLOTS + v) * N_TARGET_SLOTS + t`` calls the ``a``-th candidate API with
its ``v``-th value slot at its ``t``-th target; actions 0 and 1 are ``finish`` and ``search``.
"""

from __future__ import annotations

#: Candidate APIs per episode, memory values per API, target (seat/zone) choices per API.
N_API_SLOTS = 5
N_COMPANION_SLOTS = 2
N_MEMORY_VALUES = 8
N_TARGET_SLOTS = 3
#: Value slots: memory values 0..K-1, the same values with the request's relative change applied
#: (K..2K-1), the value the request states itself, and the minimal action (switch the device on).
VALUE_EXPLICIT = 2 * N_MEMORY_VALUES
VALUE_MINIMAL = 2 * N_MEMORY_VALUES + 1
N_VALUE_SLOTS = 2 * N_MEMORY_VALUES + 2
SLOT_FINISH, SLOT_SEARCH = 0, 1
N_SLOT_ACTIONS = 2 + N_API_SLOTS * N_VALUE_SLOTS * N_TARGET_SLOTS
#: Order in which other selector choices follow the rules' own choice in the target slots.
TARGET_ORDER = ("driver", "passenger", "all", "rear_left", "rear_right", "front", "rear", "left", "right", "both")

#: Minutes within which a line by the same speaker continues the previous line's setting ("Too low. Make
#: it 35 percent instead." one minute after "Let's try the seat position at 15 percent.").
FOLLOW_MINUTES = 10
#: The follow-up query words that find a speaker's corrections of the line before.
CORRECTION_WORDS = "too low high much little instead actually make it bump dial back mistake meant"
#: Follow-up memory queries (second search round) and hits per follow-up query.
N_FOLLOWUPS = 6
FOLLOWUP_K = 8
#: Hashed words of a value's representative line (one feature block of a value slot).
N_LINE_HASH = 32


def is_relative_value(value_slot: int) -> bool:
    """Whether value slot ``value_slot`` is a memory value with the request's relative change applied (K..2K-1)."""
    return N_MEMORY_VALUES <= value_slot < VALUE_EXPLICIT


def slot_index(api_slot: int, value_slot: int, target_slot: int) -> int:
    """The action index of a (API, value, target) slot triple."""
    return 2 + (api_slot * N_VALUE_SLOTS + value_slot) * N_TARGET_SLOTS + target_slot


def unpack_slot(index: int) -> tuple[int, int, int]:
    """``(api_slot, value_slot, target_slot)`` of a call action (index >= 2)."""
    rest = index - 2
    return rest // (N_VALUE_SLOTS * N_TARGET_SLOTS), (rest // N_TARGET_SLOTS) % N_VALUE_SLOTS, rest % N_TARGET_SLOTS
