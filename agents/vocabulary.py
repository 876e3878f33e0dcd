"""Old home of the rules' words; kept only until the SB3 slot design imports from the new homes.

The word tables are in :mod:`vmb_gym.vehicle.lexicon`; the code that reads them is in
:mod:`agents.rules` (``words``, ``params``). Import from there; this module will be removed.
"""

from agents.rules.params import enable_api, enum_spellings, selector_param, value_param
from agents.rules.words import NumberMention, find_phrases, module_words, number_word, numbers_in, phrase_pattern
from vmb_gym.vehicle.lexicon import API_WORDS, CONDITIONS, MODULE_DEFAULT, MODULE_WORDS, OPPOSITE, VALUE_SYNONYMS

__all__ = [
    "API_WORDS", "CONDITIONS", "MODULE_DEFAULT", "MODULE_WORDS", "OPPOSITE", "VALUE_SYNONYMS", "NumberMention",
    "enable_api", "enum_spellings", "find_phrases", "module_words", "number_word", "numbers_in", "phrase_pattern",
    "selector_param", "value_param",
]
