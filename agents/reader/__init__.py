"""The reader: keyword rules over the request and the memory module's hits, no language model.

The other policies build on it: the SB3 slot design (:mod:`vmb_agents.sb3.slots`) reads its lines with
these pieces, the guided language model (:class:`vmb_agents.llm.guide.RulesGuide`) takes its request
reading, seat, companions and value matcher from here, and every policy gets the step's reading as one
:class:`~vmb_agents.reader.reading.Reading`. :class:`RulesPolicy` (policy name ``rules``) is the reader
acting alone: what a memory module gives a policy that cannot reason. Per episode it

1. reads the request (:mod:`vmb_agents.reader.request`): who speaks, who the setting is for, where that
   person sits, the conditions (night, rain, ...) and any relative change ("one level higher");
2. scores every vehicle function against the request (:mod:`vmb_agents.reader.words`) with the everyday
   words of :mod:`vmb_gym.vehicle.lexicon` (module words, field words, synonyms);
3. searches the memory with the request and with "person + setting words" queries;
4. reads candidate values for the best functions out of the hits (:mod:`vmb_agents.reader.values`:
   numbers inside the parameter's range, enum words and their aliases, destinations), preferring
   lines by the person (:mod:`vmb_agents.reader.hits`), later lines, and lines whose conditions match;
5. emits the call and ``finish``; when no value is found it takes the minimal action the
   official instructions ask for (switching the device on, :func:`enable_api`).

It uses only the request text, the scenario's history through the memory module and the
simulator vocabulary: never a task's gold calls or gold memory. The SB3 slot design and the
stream writers build on these pieces; everything they use is exported here.
"""

from vmb_agents.reader.hits import content_words, hit_body, hit_body_cached, mentions_person, same_person, spoken_text
from vmb_agents.reader.params import (
    PERSONAL_SELECTORS,
    clamp_to_param,
    enable_api,
    enum_spellings,
    selector_param,
    value_param,
)
from vmb_agents.reader.policy import FINISH, READER_TOP_K, Candidate, RulesPolicy, named_candidates
from vmb_agents.reader.reading import Reading, ReadingTracker, Search
from vmb_agents.reader.request import Request, api_text, read_request, request_destination
from vmb_agents.reader.values import extract_value, request_value, selector_value
from vmb_agents.reader.words import (
    NumberMention,
    conditions_in,
    find_phrases,
    module_words,
    number_word,
    numbers_in,
    phrase_pattern,
    score_apis,
    top_scores,
    unnamed_setting_modules,
)
from vmb_gym.vehicle.lexicon import (
    API_WORDS,
    CONDITIONS,
    MODULE_DEFAULT,
    MODULE_WORDS,
    OPPOSITE,
    STOP_WORDS,
    VALUE_SYNONYMS,
)

__all__ = [
    "API_WORDS",
    "CONDITIONS",
    "FINISH",
    "MODULE_DEFAULT",
    "MODULE_WORDS",
    "OPPOSITE",
    "PERSONAL_SELECTORS",
    "READER_TOP_K",
    "STOP_WORDS",
    "VALUE_SYNONYMS",
    "Candidate",
    "NumberMention",
    "Reading",
    "ReadingTracker",
    "Request",
    "RulesPolicy",
    "Search",
    "api_text",
    "clamp_to_param",
    "conditions_in",
    "content_words",
    "enable_api",
    "enum_spellings",
    "extract_value",
    "find_phrases",
    "hit_body",
    "hit_body_cached",
    "mentions_person",
    "module_words",
    "named_candidates",
    "number_word",
    "numbers_in",
    "phrase_pattern",
    "read_request",
    "request_destination",
    "request_value",
    "same_person",
    "score_apis",
    "selector_param",
    "selector_value",
    "spoken_text",
    "top_scores",
    "unnamed_setting_modules",
    "value_param",
]
