"""Open-ended small-talk lines of the natural renderer: everyday sentence frames over large pools.

The frames are built from the most ordinary English ("I think ... but ...", "Do you think ...
will ...?"); what they are about comes from large pools of things people deal with, what they
think of them and what they add. Any single content phrase is then rare in a history, as in
real talk. ``{np}`` is a thing, ``{adj}`` what it is like, ``{clause}`` a thought added,
``{when}`` a time, ``{person}`` someone in the sharer's life (``{yperson}``: the same, asked
about by the listener; ``{person2}``: someone in the listener's), ``{name}`` the listener.
"""

from __future__ import annotations

#: Statements (the sharer's side).
SAY: tuple[str, ...] = (
    "I think {np} is {adj}, but {clause}.",
    "Honestly, {np} has been {adj} so far, and {clause}.",
    "{Person} thinks {np} is {adj}. I'm not so sure, but {clause}.",
    "The thing about {np} is that it's {adj}, and {clause}.",
    "I talked to {person} about {np} {when}, and we both think it's {adj}.",
    "If {np} stays this {adj_short}, {clause}.",
    "I'm starting to think {np} is {adj}. Either way, {clause}.",
    "We finally sorted out {np} {when}. It's {adj}, and {clause}.",
    "Part of me thinks {np} is {adj}, and part of me just wants it done.",
    "Between you and me, {np} is {adj}, but {clause}.",
    "{Np} was {adj} {when}, so {clause}.",
    "I keep going back and forth on {np}. Some days it's {adj}, and some days {clause}.",
)
#: Questions (the listener's side).
ASK: tuple[str, ...] = (
    "Do you think {np} will be {adj} by {time}?",
    "How is {np} coming along? You said it was {adj} when we last talked.",
    "Is {np} still {adj}, or has it gotten better?",
    "What does {yperson} think about {np}?",
    "Are you and {yperson} both working on {np}, or just you?",
    "Have you had any time for {np} lately, with everything else?",
    "Is {np} as {adj_short} as it sounds, or is it just the timing?",
    "Would it help if {yperson} took over {np} for a while?",
)
#: Replies (either side).
REPLY: tuple[str, ...] = (
    "That's fair. {Np} usually is {adj} at the start, and {clause}.",
    "I know what you mean. {Person2} said the same about a project of ours.",
    "Maybe, but {clause}. At least {np} is moving.",
    "Exactly, and {clause}. I'd give {np} a bit more time.",
    "If it were me, I'd wait until {time} and see how {np} looks then.",
    "Even so, {np} sounds {adj}. You should be proud of that.",
    "I'd say {np} is {adj}, but you know it better than I do.",
    "Same with {np} for me. It's {adj}, and {clause}.",
)

NP: tuple[str, ...] = (
    "the new schedule", "the second draft", "the renovation", "the budget", "the presentation", "the move",
    "the interview process", "the garden plan", "the new class", "the recipe book", "the wedding planning",
    "the grant application", "the reading list", "the training plan", "the spare room", "the photo album",
    "the volunteer rota", "the holiday plans", "the new routine", "the tax paperwork", "the job search",
    "the book club pick", "the birthday party", "the new project", "the lease renewal", "the school fundraiser",
    "the website update", "the conference trip", "the team offsite", "the quarterly report", "the backyard fence",
    "the lab results", "the research proposal", "the client pitch", "the apartment hunt", "the language course",
    "the community garden", "the charity run", "the kitchen layout", "the insurance claim", "the family reunion",
    "the piano lessons", "the new hire", "the science fair project", "the grocery budget", "the sleep schedule",
    "the weekly meal plan", "the thesis chapter", "the neighborhood meeting", "the wedding speech",
    "the dog training", "the podcast idea", "the board game night", "the spring cleaning", "the new software",
    "the field survey", "the museum visit", "the data cleanup", "the exam timetable", "the road trip route",
)
ADJ: tuple[str, ...] = (
    "more work than I expected", "a good start", "too ambitious", "surprisingly easy", "a bit of a mess",
    "going better than planned", "harder than it looks", "pretty overwhelming",
    "worth the effort", "slower than I'd like", "in decent shape", "a real learning curve", "mostly on track",
    "exciting, if I'm honest", "complicated", "a lot of fun, actually", "behind schedule", "better than last year", "stuck for now", "a nice surprise", "more expensive than we thought",
    "coming together", "a work in progress",
)
ADJ_SHORT: tuple[str, ...] = (
    "busy", "slow", "messy", "good", "tricky", "calm", "hectic", "promising", "uncertain", "quiet",
)
CLAUSE: tuple[str, ...] = (
    "we'll see how it looks next week", "I'm trying not to worry about it", "there's still a lot to do",
    "that's more than I can say for most things", "I'm learning a lot along the way",
    "nobody seems to mind", "it's teaching me patience", "I'd rather do it properly",
    "the deadline isn't going anywhere", "I'll feel better once it's done", "everyone has an opinion",
    "it gives me something to aim for", "I need a break after this", "it could be worse",
    "we should celebrate when it's over", "I'm glad I started early", "the hardest part is behind us",
    "I'm not sure what comes next", "we'll figure it out together", "it's been good for me, I think",
    "my calendar is a disaster", "I haven't told many people yet", "I'm a little proud of it",
    "I want to get it right this time", "that makes the rest easier",
)
PERSONS: tuple[str, ...] = (
    "my manager", "my sister", "our neighbor", "my coworker", "my mom", "my dad", "my best friend",
    "my roommate", "my brother", "the new intern", "my mentor", "my aunt", "my partner", "the team lead",
    "my study group", "our landlord", "my trainer", "my cousin", "my old professor", "the kids' teacher",
)
TIMES: tuple[str, ...] = (
    "next week", "the end of the month", "the weekend", "spring", "the holidays", "Friday", "summer",
    "the end of the year", "next month", "the first of the month",
)
