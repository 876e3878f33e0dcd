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
    "Hey, {name}.", "Morning!", "[Okay|Alright|Sure|Right], so.", "Guess what?", "So, quick update.", "Can I run something by you?",
    "[Oh, |Well, |]before I forget.", "Hi, {name}.", "[Got|Have you got] a minute?", "So, [funny|strange|good] thing.",
    "[Good morning|Morning], {name}.", "I have [news|an update], by the way.",
)
#: The listener's first reaction to news (good, bad or neutral).
REACT: tuple[str, ...] = (
    "That's [big|good|great] news, {name}!", "Wait, really?", "Oh no.", "That sounds like a lot to handle.",
    "That's [great|wonderful|fantastic], {name}!", "Wow.", "That's [exciting|a big step].", "Good for you!",
    "I didn't know that.", "That's [a relief|good to hear].", "Congratulations!", "That's [impressive|amazing].",
    "I can imagine.", "That sounds [frustrating|exhausting], {name}.", "You mentioned that a while back.",
    "That's [so|really] [cool|thoughtful].", "I love that.", "That's a lot of plates to keep spinning.", "I bet.",
    "That makes sense.", "Good timing, then.", "That's a lot to take on, especially with everything else you have on your plate.",
    "I love that for you, {name}. You've been working toward it for a while.",
    "That sounds [stressful|intense], but it also sounds like you're handling it [well|better than most people would].",
    "That's such a good sign, especially this early.", "Honestly, that's the best news I've heard all week.",
    "I'm sorry, that sounds [really frustrating|like a lot]. Are you doing okay?",
    "That's [wonderful|great], and you [definitely|absolutely] deserve it.",
    "That's pretty [exciting|impressive], {name}.", "Absolutely, that sounds like you.",
    "That's what I was hoping to hear.", "That's almost too good to be true.", "That's a pretty big deal, {name}.",
)
#: A question that follows any news (asked after a reaction, now and then).
FOLLOW: tuple[str, ...] = (
    "Do you feel lighter now that it's settled, or has it not sunk in yet?",
    "Do you think it will change how you [plan|do] things from now on?",
    "How do you feel about it, [honestly|overall]?", "Was that the plan all along, or did it just happen?",
    "Is that what you were hoping for?", "What's the next step for you, then?", "Did you see that coming?",
    "Do you need a hand with any of it?", "Is that something you've wanted for a while?",
    "Will you have some time for yourself, or is your week already full?",
    "Do you have someone to help you with it, or are you doing it all on your own?",
    "Is it the kind of thing that gets easier with time, or does it always feel like this?",
    "If you could change one thing about it, what would it be?", "How does your {relative} feel about it?",
    "Is there a plan B, in case it falls through?", "Does that affect your plans for the weekend, or can you still make it?",
    "Does that mean you'll finally have some time for {hobby} again?", "Are you happy with how it went, or is there more to do?",
    "Is that a good thing for you, or just more work?", "Any chance of a proper break once it's done?",
    "Have you told your {relative} yet, or are you waiting?", "Is that the same one you mentioned last week?",
)
#: Put before an answer.
HEDGE: tuple[str, ...] = (
    "Honestly,", "Well,", "A bit, yes.", "Not really.", "Sort of.", "I think so.", "Mostly.", "To be fair,",
    "Hard to say.", "Yes and no.", "Good question.", "Probably.", "I hope so.", "Not yet.", "Definitely.",
    "Absolutely.", "A little, yes.", "Actually, yes.", "Maybe.", "It's a bit of both.", "Pretty much.", "Almost.",
    "Sometimes, yes.", "Both, honestly.", "Usually, yes.", "For now, yes.",
)
#: A reply to a suggestion or a shared experience.
AGREE: tuple[str, ...] = (
    "That's [smart|clever].", "True.", "You might be right.", "That's fair.", "I hadn't considered that.",
    "Maybe. I'll sleep on it.", "That's a relief to hear, actually.", "Good point.", "I like that.",
    "That makes sense.", "I could try that.", "That's exactly what I needed to hear.", "That's worth a try.",
    "I hadn't looked at it like that.", "I should remember that.", "I think you're right.", "I appreciate that, {name}.",
    "Agreed.", "Definitely.", "That's [reassuring|good to know].", "Exactly.", "Absolutely.", "That would help, for sure.",
    "That's a good idea, and it would take some of the pressure off.", "Perfect, thank you.",
    "You're right, and I think I've been putting it off because it feels so big.",
    "I like that. It's simple, but simple is what I need right now.",
    "Maybe, if I can find the time. Some weeks that's the hard part.",
    "That's [fair|true], but I also don't want to let anyone down.",
    "I could try that, especially on the days when everything piles up.",
    "Honestly, that's what I'd tell someone else, so I should probably listen.",
    "Thanks, {name}. That's a good reminder.", "That would be perfect, actually.", "I'll think about that, thanks.",
)
#: The listener's encouragement after a plan.
SUPPORT: tuple[str, ...] = (
    "You've got this, {name}.", "That sounds sensible.", "I'm glad it's working out for you.", "Good luck with it!",
    "[Tell me|Just say] if you [want|need] a hand.", "Keep me posted.", "That's a [good|solid] plan.", "Sounds like the right call.",
    "I'm sure it will go well.", "I'm proud of you, honestly.", "One step at a time.",
    "It's a lot, but you always figure it out.", "I hope it goes smoothly.", "That sounds like a great way to handle it.",
    "You deserve it.", "I think you're doing more than you give yourself credit for.",
    "If you need someone to talk it through with, you know where to find me.",
    "Your instincts are usually good, so I'd trust them on this one.",
    "Just don't forget to take some time for yourself in the middle of all that.",
    "It sounds like you have a plan, and that's half the battle.", "That sounds perfect, {name}.",
    "I'm here if you need anything.", "That's the spirit.", "Let me know how it turns out, {name}.",
)
#: A thought added after a statement.
TAIL: tuple[str, ...] = (
    "[It's|That's] been on my mind all week.", "I'm trying not to overthink it.", "We'll see how it goes.",
    "[Fingers crossed|Wish me luck].", "It's a lot, but I'm [mostly|kind of] enjoying it.",
    "[I keep coming back to it|It's stuck in my head|I can't let it go].", "[Anyway|So], that's where things are.",
    "[Not ideal|Could be worse], [honestly|really].", "I'll [tell|show] you [later|tonight].",
    "It's [funny|strange] how these things work out.", "[At least|Still,] it's [progress|something].",
    "I didn't expect it to take this long.", "I'm [a bit|quite] proud of that, [to be honest|honestly].",
    "[Sometimes|Some days] I wonder how anything gets done.", "I hope it's worth it in the end.",
    "It's been a [long|strange] few weeks, but I think it's [turning a corner|getting better].",
    "Some days it feels like progress, and some days it feels like I'm going in circles.",
    "I think it will be worth it, but it's hard to see that in the middle of it.",
    "If I'm honest, I'm a little nervous, but mostly excited.",
    "It's always the small things that take the most time, isn't it?",
    "Maybe I'm overthinking it, but I want to get it right.",
    "I'll have a better idea by the end of the week, I think.",
    "It's not perfect, but it's a start, and that counts for something.",
)
#: Asking back about the other person's life (turns the talk to their topic).
ASK_BACK: tuple[str, ...] = (
    "[Anyway|So|Well], enough about me. How's {work} going?", "What about you? [Any news|How's it going] with {work}?",
    "How are things at {workplace}, by the way?", "Did you ever sort out {work}?",
    "[Oh, and|By the way,] how's your {relative} doing?", "Are you still busy with {work}?",
    "Speaking of work, where are you with {work}?",
)
#: Changing the subject (put before another topic's opening line).
SHIFT: tuple[str, ...] = (
    "Speaking of which,", "Totally unrelated, but", "[Oh, |Well, |]that reminds me.", "By the way,", "On a different note,",
    "Anyway,", "Changing the subject,", "Random thought, but", "[Oh|Okay], [also|one more thing].",
)
#: Lines around a passing remark about the car inside a longer talk.
ASIDE_IN: tuple[str, ...] = (
    "[Sorry|Oh|Wait|Hm|Okay], random thing while I think of it.", "[Hang on|Sorry|Oh], one car thing.",
    "[Oh, |Well, |]while we're in here.", "[Wait|Oh|Sorry], before I forget.", "[Sorry|Okay], totally off topic.",
    "[Oh|Hm], [quick|one] question about the car.", "Tiny detour[, sorry|].", "[Oh, |]this just popped into my head.",
    "[Sorry, |]car question.", "Let me say this before I lose it.", "Unrelated, but it's been bugging me.",
    "[Oh, |]speaking of the car.", "Small interruption[, sorry|].", "[Okay, |]completely different subject for a second.",
    "[Before we get to that|Before you go on], one thing.", "Hold that thought.",
)
ASIDE_OUT: tuple[str, ...] = (
    "[Anyway|So|Well], where was I?", "Sorry, go on.", "[Anyway|So|Well], back to what you were saying.", "Right. Where were we?",
    "[Okay|Alright|Sure|Right], that's [it|everything]. Carry on.", "[Sorry|Anyway], you were saying?",
    "Sorry, I interrupted you.", "[Okay|Right], done. Go ahead.", "Back to your story[, sorry|].", "That's my car rant over.",
    "Anyway, you were in the middle of something.", "Where were you? The [meeting|weekend|plan]?",
)

#: A thought composed of three parts (lead, then a clause, then what it is about), appended to lines.
THOUGHT_LEAD: tuple[str, ...] = (
    "Honestly,", "I think", "Sometimes", "Maybe", "Plus,", "And", "But", "In the end,", "Either way,",
    "For me,", "If anything,", "To be honest,", "The way I see it,", "At this point,", "Most days,", "Still,",
)
THOUGHT_CLAUSE: tuple[str, ...] = (
    "it helps to", "it's worth trying to", "you have to", "it's easy to forget to", "it's good to",
    "we should all", "it makes sense to", "the trick is to", "it's important to", "you can only", "it pays to",
    "the best thing is to", "it's fine to", "you learn to",
)
THOUGHT_END: tuple[str, ...] = (
    "take things one step at a time", "keep some time for yourself", "ask for help when you need it",
    "focus on what you can actually control", "celebrate the small wins", "check in with the people around you",
    "write everything down before you forget", "leave some room for surprises", "get some rest before a big day",
    "keep your options open", "say no to the things that drain you", "be patient with the process",
    "trust your instincts on these things", "plan ahead but not too far", "laugh about it when you can",
    "listen more than you talk", "stay curious about the details", "enjoy the quiet moments",
    "know how much you can take on", "make space for the things you love",
    "keep the people you care about close", "learn something from every mistake", "pace yourself",
    "remember why you started", "share the load with your team",
)
