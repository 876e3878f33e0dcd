"""How a conversation of the natural renderer ends: a goodbye and its answer, composed (original text).

:func:`goodbye` builds the closing pair from parts: the first line wraps up (thanks, a plan, a
reason to go) and signs off, the answer acknowledges it and adds a wish. Each part is drawn
on its own, so the thousands of goodbyes of a history rarely repeat, as in real talk.
``{name}`` is the listener's first name; ``[a|b]`` is a choice made each time.
"""

from __future__ import annotations

import random

__all__ = ["goodbye"]

#: What the first speaker wraps up with.
WRAP: tuple[str, ...] = (
    "Thanks for [listening|the chat|the advice|hearing me out|thinking it through with me], {name}.",
    "[Anyway|Okay|Right|Well], I should [get going|let you go|head out|get back to it].",
    "[Anyway|So], that's the latest from my [side|end].", "Okay, I've kept you long enough.",
    "Right, I'll [try that|give it a go|sleep on it|think about it some more].", "That's settled, then.",
    "Good talk, {name}.", "I feel better about it already.", "You always know what to say.",
    "I'll let you get on with your [day|evening|afternoon].", "Thanks, that [helps|helped] a lot.",
    "Okay, enough of my rambling.", "[Well|Anyway], that's where things stand.", "I needed that, [honestly|truly].",
    "Let's [pick this up|continue this] [later|another time|over dinner].", "Thanks for the [ideas|pep talk|reality check].",
    "You've given me plenty to chew on.", "I won't keep you.", "Okay, back to the real world.",
    "I should [probably|really] [start dinner|answer some emails|check on the laundry|get some sleep].",
)
#: What they will do next (optional).
PLAN: tuple[str, ...] = (
    "I'll [give you an update|fill you in] [tomorrow|this week|after the weekend].", "I'll [text|call] you [later|tonight].",
    "I'll report back.", "More news [soon|when I have it], I promise.", "I'll keep you in the loop.",
    "We can [finish this|talk more] [at dinner|tonight|this weekend].", "I'll send you [the details|a photo|the link] later.",
    "Remind me to tell you the rest.", "I'll [try|aim] to be home [early|before dark|by seven].",
    "Next [coffee|lunch] is on me.", "I'll let you know if anything changes.",
)
#: How the first speaker signs off (optional).
SIGN_OFF: tuple[str, ...] = (
    "Have a good [one|evening|day|afternoon], {name}.", "Talk soon, {name}.", "Take care.", "See you later.",
    "Bye for now.", "See you at home.", "Catch you later, {name}.", "Speak soon.", "Don't work too hard.",
    "Enjoy the rest of your day.",
)
#: How the other answers.
ANSWER: tuple[str, ...] = (
    "You too.", "Anytime.", "Of course.", "Please do.", "Sounds good.", "Talk soon.", "Will do.", "Deal.",
    "Same to you, {name}.", "My pleasure.", "You're welcome.", "Glad I could help.", "Speak soon, {name}.",
    "Good luck, {name}.", "Take care, {name}.", "Anytime, really.", "No problem at all.", "Of course, {name}.",
    "Definitely.", "I'm always here.", "Happy to.", "See you.", "Bye, {name}!", "Looking forward to it.",
    "It was nice to catch up.", "I enjoyed this.", "That's what I'm here for.", "Any time you need it.",
)
#: What the other adds (optional).
WISH: tuple[str, ...] = (
    "Don't stay up too late.", "Say hi to everyone for me.", "Drive safe.", "Get some rest.",
    "Enjoy the [evening|weekend|quiet].", "Tell me how it turns out.", "I want to hear [everything|all about it].",
    "[Fingers crossed|I'm rooting for you].", "You'll be fine.", "Try to take a break at some point.",
    "Go easy on yourself.", "Keep me posted.", "Don't forget to eat something.", "Save me a slice.",
    "I'll hold you to that.", "And good luck with [everything|the rest of it].", "We'll figure it out.",
    "Call me if you need anything.", "I'll be around all [evening|day].",
)


def goodbye(rng: random.Random) -> tuple[str, str]:
    """A closing pair (templates with ``{name}`` and ``[a|b]`` left for the renderer to fill)."""
    first = [rng.choice(WRAP)]
    if rng.random() < 0.5:
        first.append(rng.choice(PLAN))
    if len(first) == 1 or rng.random() < 0.4:
        first.append(rng.choice(SIGN_OFF))
    second = [rng.choice(ANSWER)]
    if rng.random() < 0.95:
        second.append(rng.choice(WISH))
    return " ".join(first), " ".join(second)
