"""Tool schemas rendered from the API specs, in two flavours.

* ``"official"``: what the official agent sees (OpenAI function-calling format): the first line
  of the docstring as the description, JSON types, ``required``, and parameter descriptions
  that are just the parameter name, except ``zone`` and the ``is_on``/``enabled`` switches.
  No enums and no ranges, so LLM scores stay comparable with the paper.
* ``"rich"``: the same plus enums (with accepted aliases), integer ranges, defaults, units and
  the documented quirks of the docstring.

Example:
    >>> tool = api_schema("carcontrol_HUD_set_height_level", "rich")
    >>> tool["function"]["parameters"]["properties"]["level"]["maximum"]
    10
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from vmb_gym.errors import ConfigError
from vmb_gym.memory.records import DEFAULT_TOP_K
from vmb_gym.vehicle.api import ApiSpec, ParamSpec
from vmb_gym.vehicle.simulator import API_SPECS, MODULE_KEYS, MODULES

SchemaFlavour = Literal["official", "rich"]
FLAVOURS: tuple[str, ...] = ("official", "rich")

_ZONE_TEXT = "Target zone: driver/passenger/rear_left/rear_right/front/rear/all"
_SWITCH_TEXT = "Enable (true) or disable (false)"


def _check_flavour(flavour: str) -> None:
    if flavour not in FLAVOURS:
        raise ConfigError(f"schema flavour must be one of {FLAVOURS}, got {flavour!r}")


def _official_param(p: ParamSpec) -> dict[str, Any]:
    if p.name == "zone":
        text = _ZONE_TEXT
    elif p.name in ("is_on", "enabled"):
        text = _SWITCH_TEXT
    else:
        text = p.name
    return {"type": p.json_type, "description": text}


def _rich_param(p: ParamSpec) -> dict[str, Any]:
    out = _official_param(p)
    c = p.constraint
    if c is not None:
        if c.choices:
            out["enum"] = list(c.choices)
            if c.aliases:
                out["description"] += "; also accepted: " + ", ".join(f"{a} = {v}" for a, v in c.aliases.items())
        if c.minimum is not None:
            out["minimum"] = c.minimum
        if c.maximum is not None:
            out["maximum"] = c.maximum
        if c.unit:
            out["description"] += f" ({c.unit})"
        if c.note:
            out["description"] += f"; {c.note}"
    if not p.required:
        out["default"] = p.default
    return out


def _render(spec: ApiSpec, flavour: str) -> dict[str, Any]:
    render = _official_param if flavour == "official" else _rich_param
    description = spec.description if flavour == "official" else " ".join(spec.doc.split())
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {p.name: render(p) for p in spec.params},
                "required": list(spec.required),
            },
        },
    }


@cache
def _cached(name: str, flavour: str) -> dict[str, Any]:
    return _render(API_SPECS[name], flavour)


def api_schema(name: str, flavour: SchemaFlavour = "official") -> dict[str, Any]:
    """The tool schema of one vehicle API (shared cached object: do not mutate)."""
    _check_flavour(flavour)
    if name not in API_SPECS:
        raise ConfigError(f"unknown vehicle function {name!r}; expected one of the 111 carcontrol_* names")
    return _cached(name, flavour)


@cache
def _module_schemas(module_key: str, flavour: str) -> tuple[dict[str, Any], ...]:
    return tuple(_cached(name, flavour) for name in MODULES[module_key].APIS)


def module_schemas(module_key: str, flavour: SchemaFlavour = "official") -> list[dict[str, Any]]:
    """Schemas of one module's APIs, in the official alphabetical order."""
    _check_flavour(flavour)
    if module_key not in MODULES:
        raise ConfigError(f"unknown module {module_key!r}; expected one of {', '.join(MODULE_KEYS)}")
    return list(_module_schemas(module_key, flavour))


def all_vehicle_schemas(flavour: SchemaFlavour = "official") -> list[dict[str, Any]]:
    """Schemas of all 111 vehicle APIs, module by module."""
    return [s for key in MODULE_KEYS for s in module_schemas(key, flavour)]


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


#: The discovery tool every agent starts with (official name and shape).
LIST_MODULE_TOOLS = _tool(
    "list_module_tools",
    "List all available tools (functions) of a vehicle module. Call this first to discover the "
    "functions you need. Module names: " + ", ".join(MODULE_KEYS) + ".",
    {"module_name": {"type": "string", "description": "Exact module name, e.g. 'seat' or 'airConditioner'"}},
    ["module_name"],
)

#: Most neighbouring lines ``search_memory`` shows either side of a hit (its ``context``).
MAX_CONTEXT = 3

#: The memory-search tool offered when the memory module retrieves (official memory-system shape,
#: plus the optional ``context``: neighbouring lines around each hit, like ``grep -C``).
SEARCH_MEMORY = _tool(
    "search_memory",
    "Search the household's conversation memory for preferences and past settings.",
    {
        "query": {"type": "string", "description": "What to look for, e.g. 'Gary seat heating at night'"},
        "top_k": {
            "type": "integer",
            "description": "How many results to return (1-20)",
            "minimum": 1,
            "maximum": 20,
            "default": DEFAULT_TOP_K,
        },
        "context": {
            "type": "integer",
            "description": "Also show this many lines said just before and after "
            f"each result on the same day, e.g. a correction that does not repeat the setting (0-{MAX_CONTEXT})",
            "minimum": 0,
            "maximum": MAX_CONTEXT,
            "default": 0,
        },
    },
    ["query"],
)

#: The tool that ends the episode.
FINISH = _tool("finish", "End the episode: the car is in the state you want. Scoring happens now.", {}, [])
