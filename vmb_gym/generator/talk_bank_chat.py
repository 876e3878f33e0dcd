"""The conversational glue of the natural renderer's small talk (original text).

Topic content lives in :mod:`vmb_gym.generator.talk_bank_topics`; these are the parts any
conversation uses around it: how people open, react, hedge, agree, add a thought, ask back,
change the subject and say goodbye. ``{name}`` is the listener's first name; ``[a|b|c]`` is a
choice the renderer makes each time a text is used. Apostrophes are ASCII here; the renderer
sets most of them curly.
"""

from __future__ import annotations

#: Put before an opening line, now and then.
GREET: tuple[str, ...] = (
    "Hey, {name}.", "Morning!", "Okay, so.", "Guess what?", "So, quick update.", "Can I run something by you?",
    "Oh, before I forget.", "Hi, {name}.", "[Got|Have you got] a minute?", "So, [funny|strange|good] thing.",
    "[Good morning|Morning], {name}.", "I have [news|an update], by the way.",
)
#: The listener's first reaction to news (good, bad or neutral).
REACT: tuple[str, ...] = (
    "Oh, that's [big|good|great] news!", "Wait, really?", "Oh no.", "That sounds like a lot.", "Nice!",
    "Oh, interesting.", "That's [great|wonderful|fantastic], {name}!", "Oh wow.", "That's [exciting|a big step].",
    "Good for you!", "Oh, I didn't know that.", "That's [a relief|good to hear].", "Congratulations!",
    "That's [impressive|amazing].", "I can imagine.", "Ouch. That sounds [frustrating|exhausting].",
    "Ah, [I see|I remember you mentioning that].", "That's [so|really] [cool|thoughtful].", "Oh, I love that.",
    "[Honestly|Wow], that's [quite a week|a lot to juggle].", "I bet.", "That makes sense.", "Oh, [nice|fun]!",
)
#: A question that follows any news (asked after a reaction, now and then).
FOLLOW: tuple[str, ...] = (
    "Are you [feeling|more] relieved now, or is it [just a new kind of stress|still sinking in]?",
    "Do you think it'll change how you [plan|do] things [from now on|going forward]?",
    "How are you feeling about it, [honestly|overall]?", "Was that the plan all along, or did it just happen?",
    "Is that what you were hoping for?", "What's the next step, then?", "Did you see that coming?",
    "Do you need a hand with any of it?", "Is that [something|the thing] you've been wanting for a while?",
    "Are you going to [tell|ask] anyone else about it?", "So what happens now?",
)
#: Put before an answer.
HEDGE: tuple[str, ...] = (
    "Honestly,", "I mean,", "Well,", "A bit, yes.", "Not really.", "Sort of.", "I think so.", "Mostly.",
    "To be fair,", "Hard to say.", "Yes and no.", "Good question.", "[Probably|Possibly].", "I hope so.",
    "[Not yet|Not quite].", "[Definitely|Absolutely].", "A little, yes.", "Actually, yes.", "Maybe.",
    "It's [a bit of both|complicated].",
)
#: A reply to a suggestion or a shared experience.
AGREE: tuple[str, ...] = (
    "That's [smart|clever].", "True.", "You might be right.", "That's fair.", "I hadn't considered that.",
    "Maybe. I'll [think about|sleep on] it.", "That's a relief to hear, actually.", "Good point.",
    "Oh, I like that.", "That makes sense.", "I'll try that.", "That's [exactly|precisely] what I [needed|wanted] to hear.",
    "[That's|It's] [worth a try|not a bad idea].", "I never thought of it that way.", "I should remember that.",
    "[Yes|Yeah], I think you're right.", "[I appreciate that|Thanks], {name}.", "Agreed.", "Definitely.",
    "That's [reassuring|good to know].", "Exactly.",
)
#: The listener's encouragement after a plan.
SUPPORT: tuple[str, ...] = (
    "You've got this.", "That sounds sensible.", "I'm glad it's working out.", "Good luck with it!",
    "Shout if you want help with it.", "Keep me posted.", "That's a [good|solid] plan.", "Sounds like the right call.",
    "It'll go well, I can tell.", "I'm proud of you, honestly.", "One step at a time.",
    "[That's|It's] a lot, but you [always|usually] figure it out.", "I hope it goes smoothly.",
    "That sounds like a [great|good] [way to handle it|approach].", "You deserve it.",
)
#: A thought added after a statement.
TAIL: tuple[str, ...] = (
    "[It's|That's] been on my mind all week.", "I'm trying not to overthink it.", "We'll see how it goes.",
    "[Fingers crossed|Wish me luck].", "It's a lot, but I'm [mostly|kind of] enjoying it.",
    "I [keep|can't stop] thinking about it.", "[Anyway|So], that's where things are.",
    "[Not ideal|Could be worse], [honestly|really].", "I'll [tell|show] you [later|tonight].",
    "It's [funny|strange] how these things work out.", "[At least|Still,] it's [progress|something].",
    "I didn't expect it to take this long.", "I'm [a bit|quite] proud of that, [to be honest|honestly].",
    "[Sometimes|Some days] I wonder how anything gets done.", "I hope it's worth it in the end.",
    "It's been a [long|strange] few weeks, but I think it's [turning a corner|getting better].",
)
#: Asking back about the other person's life (turns the talk to their topic).
ASK_BACK: tuple[str, ...] = (
    "Anyway, enough about me. How's {work} going?", "What about you? [Any news|How's it going] with {work}?",
    "How are things at {workplace}, by the way?", "Did you ever sort out {work}?",
    "[Oh, and|By the way,] how's your {relative} doing?", "Are you still busy with {work}?",
    "Speaking of work, where are you with {work}?",
)
#: Changing the subject (put before another topic's opening line).
SHIFT: tuple[str, ...] = (
    "Speaking of which,", "Totally unrelated, but", "Oh, that reminds me.", "By the way,", "On a different note,",
    "Anyway,", "Changing the subject,", "Random thought, but", "[Oh|Okay], [also|one more thing].",
)
#: Closing pairs: the first speaker, then the reply.
CLOSE: tuple[tuple[str, str], ...] = (
    ("Thanks for listening, {name}. I needed that.", "Anytime. Keep me posted."),
    ("Anyway, I should get going.", "Same. Talk [later|soon]!"),
    ("Okay, I'll report back.", "Please do. Good luck!"),
    ("Right, enough about me.", "I like hearing about it, honestly."),
    ("Thanks, {name}. That [helps|helped], really.", "Of course. [Any time|Happy to help]."),
    ("I'll tell you more tonight.", "[Looking forward to it|Can't wait]."),
    ("Let's pick this up later.", "Sure, no rush."),
    ("Okay. Wish me luck.", "Good luck! You'll be [fine|great]."),
    ("[I'd better|I should] [get back to it|go], {name}.", "[Go|Off you go]. Talk [soon|later]."),
    ("Thanks for the [advice|pep talk].", "[Happy to help|Any time], [really|honestly]."),
    ("[Okay|Alright], I'll keep you updated.", "[Please|Yes], I want to know how it ends."),
    ("Thanks again, {name}.", "Of course. [Have a good day|Enjoy the rest of your day]!"),
)
#: Lines around a passing remark about the car inside a longer talk.
ASIDE_IN: tuple[str, ...] = (
    "Sorry, random thing while I think of it.", "Hang on, one car thing.", "Oh, while we're in here.",
    "Wait, before I forget.", "Sorry, totally off topic.", "[Oh|Hm], [quick|one] question about the car.",
)
ASIDE_OUT: tuple[str, ...] = (
    "Anyway, where was I?", "Sorry, go on.", "Anyway, back to what you were saying.", "Right. Where were we?",
    "Okay, that's all. Carry on.", "[Sorry|Anyway], you were saying?",
)
