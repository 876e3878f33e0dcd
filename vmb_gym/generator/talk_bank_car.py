"""Parts that vary how the natural renderer's car lines are said (original text).

A planned line about a setting keeps its core (the value, the setting, the condition, the
relative); these parts go around it: a lead-in before a stated preference (:data:`LEAD`), a
remark after it (:data:`TAIL`), and the pieces a remark about another car is built from
(:data:`OTHER_CAR`, :data:`OTHER_VERB`, :data:`OTHER_COMMENT`). None of them names a value or
a value word (no numbers, "on", "off", "low", "high", colors, modes), so the value matcher reads
the same value from the line with or without them.
"""

from __future__ import annotations

import random

#: Put before a stated preference (a trailing comma: the core then starts in lower case).
LEAD: tuple[str, ...] = (
    "Oh, by the way,", "Before I forget,", "Small thing,", "While I think of it,", "Random, but", "Not a big deal, but",
    "This will sound picky, but", "One more thing,", "Just so you know,", "For next time,", "Side note,",
    "Now that we're in here,", "Since you asked earlier,", "I keep forgetting to say,", "Tiny request,",
    "Okay, confession,", "While we're driving,", "If nobody minds,", "Sorry to be that person, but",
    "I've been meaning to mention,", "For the record,", "Not to be fussy, but", "Before we get going,",
)
#: Said after a stated preference.
TAIL: tuple[str, ...] = (
    "It makes the drive [easier|calmer|less tiring].", "Long drives are so much nicer that way.", "My back thanks me for it.",
    "Don't ask me why.", "It's a small thing, but it matters to me.", "I notice straight away when it's different.",
    "Just so we're clear for next time.", "You can change it when you're driving, of course.", "I've tested it for weeks.",
    "It's been like that for me for years.", "Trust me with this one.", "It's the little things.", "I'm a creature of habit.",
    "Everything else feels wrong somehow.", "My eyes are grateful.", "It's one less thing to think about.",
    "I sleep better after a drive like that, oddly.", "I promise I'm not that fussy about anything else.",
    "My [sister|mom|dad|brother] is exactly the same.", "It just feels like my car then.", "You'd be surprised how much it helps.",
    "Especially driving home.", "Especially when I'm tired.", "Even for short trips.", "That's my one request.",
    "It took me a while to figure that out.", "Call it a quirk.", "I know, I know.", "I learned that the hard way.",
)
#: Another car or person a remark about a setting is about.
OTHER_CAR: tuple[str, ...] = (
    "The rental we had in [March|the spring|the summer]", "My [cousin's|sister's|neighbor's|boss's] hatchback",
    "The loaner from the dealership", "That shuttle van to the airport", "The demo car at the showroom",
    "My friend's new [SUV|electric car|pickup]", "The taxi I took [yesterday|last night|last Friday]",
    "The car we borrowed for the wedding", "My old [sedan|station wagon|coupe]", "The ride share this morning",
    "The company car [I drove last year|at work]", "The minivan at the campsite rental",
)
#: What the other car "had" (the core: ``{noun}`` and ``{val}`` follow).
OTHER_VERB: tuple[str, ...] = (
    "had {noun} at {val}", "was set to {noun} at {val}", "came with {noun} at {val}",
    "had {noun} stuck at {val}", "kept {noun} at {val}", "had {noun} sitting at {val}",
)
#: A comment on the other car's setting.
OTHER_COMMENT: tuple[str, ...] = (
    "I didn't touch it.", "Not my thing whatsoever.", "It drove me mad.", "I couldn't find the menu to change it.",
    "Each to their own.", "I got used to it, weirdly.", "I spent the whole ride wondering why.", "It was fine for a day.",
    "Not for me, though.", "I wouldn't want it in ours.", "I didn't bother changing it.", "Strange choice, if you ask me.",
    "I guess someone liked it.", "It was almost nice.", "I kept meaning to ask about it.",
)

#: Banks of :mod:`vmb_gym.generator.talk_bank_speech` whose lines state the speaker's own preference.
PREFERENCE_BANKS = frozenset({"STATE", "BASE", "REVISE", "REVISE_FOR_NOW", "COND", "CONFLICT_REPLY"})


def around(bank: str, template: str, rng: random.Random) -> str:
    """``template`` (a natural car line of ``bank``) with a lead-in or a remark added, now and then.

    A remark about another car (``NEAR_MISS``) is, half the time, built from parts instead.
    """
    if bank == "NEAR_MISS" and rng.random() < 0.5:
        return f"{rng.choice(OTHER_CAR)} {rng.choice(OTHER_VERB)}. {rng.choice(OTHER_COMMENT)}"
    if bank not in PREFERENCE_BANKS:
        return template
    if rng.random() < 0.25 and not template.startswith("{listener}"):
        core = "{" + template[1:2].lower() + template[2:] if template.startswith("{") else template
        if not core.startswith(("I ", "I'")):
            core = core[:1].lower() + core[1:]
        template = f"{rng.choice(LEAD)} {core}"
    if rng.random() < 0.35:
        template = f"{template} {rng.choice(TAIL)}"
    return template

#: The listener asks why (head, then now and then a second question).
WHY_HEAD: tuple[str, ...] = (
    "Any particular reason?", "Why that one, if you don't mind me asking?", "What made you pick that?",
    "Since when?", "How come?", "Is that a comfort thing?", "Really? Why?", "Oh? What's the story there?",
    "Interesting. Why that?", "Does it make that much difference?", "Huh, I never noticed. Why?",
    "Is there a reason, or is it just you?", "Wait, why?", "Is that new?",
)
WHY_MORE: tuple[str, ...] = (
    "I'm curious.", "You never used to care.", "Or is it just habit?", "I would have guessed the opposite.",
    "I always wondered.", "Just so I understand.", "I'm not judging.", "Genuinely asking.",
)
#: Why someone wants a setting: a reason, then now and then when it matters and a remark.
REASON: tuple[str, ...] = (
    "It's easier for my eyes", "It helps my back", "I get less tired that way", "I can concentrate better",
    "It keeps me from getting distracted", "It's what I had in my first car", "It just suits me",
    "My physio suggested something like it", "I feel more relaxed that way", "It keeps the headaches away",
    "I can hear myself think", "It stops my neck from aching", "I drive better when I'm comfortable",
    "It's less fiddling", "My [sister|brother|friend] got me into it", "I read that it helps",
    "It reminds me of [home|my dad's car]", "I hate the feeling otherwise",
)
WHEN: tuple[str, ...] = (
    "especially after a long day", "at least for longer drives", "mostly at night", "especially in traffic",
    "for motorway driving more than anywhere", "when I've been at a screen the whole day", "in the mornings especially",
)
REMARK: tuple[str, ...] = (
    "Don't ask me to explain it.", "Oddly enough.", "That's really it.", "I know it sounds silly.",
    "Maybe it's in my head.", "Habit, mostly.", "It's a long story.", "It took me years to notice.",
)


def why(rng: random.Random) -> str:
    """The listener's question about a stated preference."""
    more = f" {rng.choice(WHY_MORE)}" if rng.random() < 0.4 else ""
    return rng.choice(WHY_HEAD) + more


def because(rng: random.Random) -> str:
    """The speaker's reason for a stated preference."""
    when = f", {rng.choice(WHEN)}" if rng.random() < 0.5 else ""
    remark = f" {rng.choice(REMARK)}" if rng.random() < 0.4 else ""
    return f"{rng.choice(REASON)}{when}.{remark}"


#: Taking note of someone's preference: a head, then what the listener will do, then now and then more.
ACK_HEAD: tuple[str, ...] = (
    "Noted.", "Got it.", "Okay.", "Sure.", "Fair enough.", "Makes sense.", "Understood.", "Of course.",
    "Good to know.", "Will do.", "Huh, okay.", "Consider it done.", "Ha, fine.", "No problem.", "Duly noted.",
)
ACK_BODY: tuple[str, ...] = (
    "I'll remember that for next time.", "I'll leave it like that when you're in the car.", "I won't touch it.",
    "I'll try not to change it behind your back.", "You know what works for you.", "It's your comfort, in the end.",
    "I'd never have guessed, but okay.", "I'll tell the others too.", "I'll make a note of it.",
    "No more fiddling from me.", "That's easy enough.", "I'll keep it in mind when I drive you.",
    "I wondered why it kept changing.", "So that's who keeps changing it.", "I'll do my best to remember.",
)
ACK_MORE: tuple[str, ...] = (
    "Just remind me if I forget.", "Especially for the busy mornings.", "You've mentioned it before, I think.",
    "I should keep a list of these.", "Everyone has their thing.", "I'm the same about other stuff.",
    "Tell me if it ever changes.", "Your car as much as mine.", "We'll figure it out between us.",
)


def ack(rng: random.Random) -> str:
    """Taking note of a stated preference (no value said)."""
    more = f" {rng.choice(ACK_MORE)}" if rng.random() < 0.35 else ""
    return f"{rng.choice(ACK_HEAD)} {rng.choice(ACK_BODY)}{more}"
