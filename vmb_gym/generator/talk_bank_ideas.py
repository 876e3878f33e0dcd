"""Sentence frames for shop talk and the thoughts people add to it (original text).

:mod:`vmb_gym.generator.talk_ideas` composes each line of a conversation about work from one
frame of a move (``OPEN``, ``ASK`` with its answers ``QA``, ``RELATE``, ``OFFER``, ``THANK``, ``REPORT``)
and, now and then, a reaction before it and a thought after it. Placeholders: ``{stuff}``,
``{stuff2}``, ``{doing}``, ``{world}`` and ``{snag}`` come from the speaker's job
(:mod:`vmb_gym.generator.talk_bank_fields`), ``{ostuff}``, ``{odoing}`` and ``{oworld}`` from
the other person's; ``{idea}`` is an abstract theme, ``{claim}`` a general clause,
``{colleague}`` someone at work (``{she}``/``{her}`` their pronouns), ``{name}`` the listener.
``[a|b]`` is a choice made each time.
"""

from __future__ import annotations

#: The sharer brings up their work.
OPEN: tuple[str, ...] = (
    "I spent most of the day {doing}. [It's slow going|It adds up], but I think {claim}.",
    "{Stuff} finally [came together|moved forward] this week. [Took long enough|About time].",
    "I've been {doing} since [Monday|the weekend|eight this morning], and my brain is [mush|fried].",
    "[So|Well], {stuff} {stuff_is} [back on the table|happening after all]. I'm [cautiously optimistic|not sure how I feel about it].",
    "We had a long meeting about {stuff} today. Everyone agrees it matters, but nobody agrees on how.",
    "I keep thinking about {idea}. It comes up {world} more than people would guess.",
    "[Quick update|Small victory]: {stuff} {stuff_is} [finally done|through review], at least for now.",
    "Today was all {snag}. I didn't get to {stuff2} at all.",
    "[I might have|I think I] found a better way to handle {stuff}. If it works, it'll save us hours.",
    "[Funny|Odd] day {world}. Half of it was {doing}, and the other half was explaining why.",
    "I'm presenting {stuff} on [Thursday|Friday|Monday]. [Wish me luck|I'm more nervous than I should be].",
    "They asked me to lead {stuff}. It's a [good|big] opportunity, but my plate is already full.",
    "Someone asked me today why I stay {world}. I said it's {idea}, and I think I meant it.",
    "Between {snag} and {stuff}, this week has been [a lot|one long puzzle].",
    "I finally [finished|wrapped up] {stuff}. Now on to {stuff2}, [apparently|of course].",
    "I got some feedback on {stuff} today. Mostly good, [with a few|plus some] [surprises|sharp notes].",
    "[Every|Each] time I think {stuff} is under control, {snag} [shows up|gets in the way] again.",
    "I've started {doing} before anyone else gets in. It's the only quiet hour I get.",
    "There's talk of changing how we do {stuff}. I'm [curious|wary], to be honest.",
    "I had a good conversation with a [student|client|colleague] about {idea}. It stayed with me all afternoon.",
)
#: The listener asks about it, and the answers that fit each question.
QA: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("How {stuff_is} {stuff} going? Last time you sounded [worried|stuck|hopeful].",
     ("It depends on the day. Some days {stuff} {stuff_is} fine, and some days it's {snag} from start to finish.",
      "It's getting better. We changed how we handle {stuff2}, and that [helped|made a difference].")),
    ("Does {doing} ever wear you down, or is it [satisfying|strangely calming] by now?",
     ("I [like|love] it, [honestly|mostly]. There's something about {doing} that makes sense to me.",
      "Some weeks. I used to mind more, but {doing} has taught me [patience|to slow down].")),
    ("{Snag_is} {snag} still [a problem|getting in the way], or [has it|have things] eased up?",
     ("Still there. We're waiting on a fix, so [it's|everything is] on hold.",
      "A little better. We found a workaround, at least until the next surprise.")),
    ("What's the hardest part of {stuff}, if you had to pick one?",
     ("Probably {snag}. The work itself is fine; it's everything around it.",
      "The waiting. So much of {stuff} depends on other people.")),
    ("Did anyone [help|step in] with {stuff}, or was it mostly you?",
     ("Mostly me, [though|but] a colleague [helped|pitched in] with {stuff2}.",
      "A bit of both. I did the first half, and then the team took over.")),
    ("Are you planning to [change|rethink] how you do {stuff}, or [stick with|keep] what works?",
     ("We'll see. If the next round goes well, {stuff} could [change|shape] how we work for years.",
      "Probably stick with it. Changing things mid-year is asking for trouble.")),
    ("How do you [keep|stop] {stuff} from taking over your whole week?",
     ("I try, but {stuff} has a way of spilling into the evenings.",
      "Lists. Lots of lists. And saying no more often than I used to.")),
    ("Do you think {stuff} will [get easier|settle down] once {snag} {snag_is} sorted?",
     ("[Hopefully|Maybe] by the end of the month, if {snag} {snag_does}n't get worse.",
      "I think so. Most of the stress comes from {snag}, not the work.")),
    ("What made you [go into|choose] that line of work in the first place?",
     ("I fell into it, [really|honestly]. I stayed because of {idea}.",
      "A teacher I had. {She} made it look like the best job in the world.")),
    ("Is {doing} something you [enjoy|like], or just part of the job?",
     ("A bit of both. {Stuff} {stuff_is} [interesting|rewarding], but the pace is [exhausting|a lot].",
      "I enjoy it more than I'd admit at work.")),
    ("Have you considered [asking for help with|handing off part of] {stuff}? It [could|might] free up some time.",
     ("I have. The problem is explaining it takes longer than doing it.",
      "Maybe. {Colleague} offered, so I might take {her} up on it.")),
    ("What's the deadline for {stuff}? Or is it one of those open-ended things?",
     ("End of the month, in theory. In practice, whenever {snag} allows.",
      "Open-ended, which is almost worse.")),
    ("Does your team see {idea} the same way you do?",
     ("[Good question|Hard to say]. I think it's {idea} for me, and for them it's the numbers.",
      "Mostly, yes. That's why I like working with them.")),
    ("Do you get to choose what you work on next, or does it just land on your desk?",
     ("It lands on my desk, mostly. {Stuff} was never my idea.", "A bit of both. I pushed for {stuff2}, at least.")),
    ("Would you do the same job again, if you could start over?",
     ("Probably, yes. Maybe somewhere smaller.", "Some days yes, some days I dream about opening a bakery.")),
    ("How does {snag} affect the rest of the team?",
     ("Everyone's stretched. We cover for each other, but it shows.", "Hard to say. Some people thrive on it; I don't.")),
    ("What would make {stuff} easier, if you could change one thing?",
     ("More time, honestly. Or fewer meetings about it.", "Clearer answers from above. Half the work is guessing.")),
    ("Does anyone outside work understand what {doing} involves?",
     ("Not really. My family thinks I just send emails.", "My {relative} does, a little. {Rhe} asks good questions.")),
    ("Who decides how {stuff} gets done? [You|Your manager|The client]?",
     ("Not really me. {Stuff} {stuff_looks} [simple|tidy] from outside, but every decision goes up the chain.",
      "In theory the client. In practice, whoever shouts loudest.")),
)
#: The questions alone.
ASK: tuple[str, ...] = tuple(q for q, _ in QA)
#: The listener relates it to their own work or life.
RELATE: tuple[str, ...] = (
    "{Odoing} gives me that same feeling. [It's|That's] the same [puzzle|tension], just in a different form.",
    "That reminds me of {ostuff} {oworld}. [Different details, same headache|Same problem, different names].",
    "Or {ostuff}, in my world. Maybe we're all just trying to [make order out of mess|keep things from falling apart].",
    "It's like {ostuff}: the hard part is never the part people [see|expect].",
    "We have the same debate {oworld}. Everyone wants [results|speed], nobody wants to pay for {idea}.",
    "I know that feeling. {Ostuff} was [exactly|just] like that last spring.",
    "That sounds a lot like {odoing}. You think you're done, and then there's one more thing.",
    "{Oworld}, we'd call that a good problem to have. [Mostly|Sometimes].",
    "Funny, I was {odoing} this morning and thinking about {idea} too.",
    "I wish more people {oworld} thought about it that way.",
)
#: Someone offers to help.
OFFER: tuple[str, ...] = (
    "If you ever want [another set of eyes|a reader] on it, my evenings are mostly free.",
    "If you need someone to [test|try out] {stuff} on, I'm happy to help.",
    "[I can|I could] send you a few notes from when I was {odoing}. Might be useful.",
    "Shout if {stuff} needs anything from me. Even just [coffee|snacks] and a quiet room.",
    "If it helps, I can [ask around|check with a friend] {oworld}. Someone must have dealt with {snag}.",
    "Want to talk it through over dinner? Sometimes saying it out loud helps.",
)
#: The sharer thanks them.
THANK: tuple[str, ...] = (
    "Thank you, {name}. That [means a lot|helps more than you'd think].",
    "That's kind of you. I may [hold you to it|well say yes].",
    "Thanks, {name}. I'll [let you know|keep you posted] how {stuff} goes.",
    "That would be [great|really helpful], actually. Thank you.",
    "You're the best, {name}. I'll bring the [coffee|snacks].",
    "Deal. I'll send you what I have [tonight|tomorrow].",
    "I'd like that. It's easy to lose perspective when you're this close to it.",
)
#: A report about someone at work.
REPORT: tuple[str, ...] = (
    "{Colleague} thinks we should [start over on|rethink] {stuff}. {She} might be right, [which is annoying|honestly].",
    "{Colleague} is leaving next month. {She} [ran|held together] {stuff2}, so that's going to [hurt|be hard].",
    "{Colleague} [figured out|found] what was wrong with {stuff}. {She} [deserves a medal|saved my week].",
    "{Colleague} asked me to [mentor|help] {her} with {doing}. I'm flattered, [and a little nervous|and a bit tired].",
    "{Colleague} keeps saying {claim}. I'm starting to believe {her}.",
    "{Colleague} presented on {idea} today. [It was really good|I learned a lot], and I told {her} so.",
)
#: Someone at work, with their pronouns (subject, object).
COLLEAGUES: tuple[tuple[str, str, str], ...] = (
    ("A colleague of mine", "She", "her"), ("My manager", "He", "him"), ("One of the new hires", "She", "her"),
    ("My supervisor", "She", "her"), ("The guy who trained me", "He", "him"), ("My old mentor", "She", "her"),
    ("Our team lead", "He", "him"), ("The woman who runs the other team", "She", "her"),
    ("One of the interns", "He", "him"), ("My work friend Priya", "She", "her"), ("Marco from the office", "He", "him"),
)
#: Abstract themes of a job (noun phrases).
IDEAS: tuple[str, ...] = (
    "the balance between speed and care", "how much trust the work depends on", "the gap between the plan and reality",
    "how small decisions add up", "the way people react to change", "how little of the real work shows",
    "the difference between fixing a problem and understanding it", "the patience it takes", "doing things properly",
    "how much depends on communication", "the line between helping and taking over", "the value of a good routine",
    "how messy real data is", "the way habits shape results", "the cost of cutting corners",
    "how much you learn from mistakes", "the pressure to look busy", "the feeling of finishing something well",
    "how hard it is to measure progress", "the way a good team carries you", "the quiet satisfaction of the job",
    "how different the work looks from outside", "the tension between rules and common sense",
    "the part of the job nobody trains you for", "how quickly things change", "the limits of planning",
    "the way stress spreads through a team", "what people expect versus what they need",
)
#: General clauses (no capital, no full stop).
CLAIMS: tuple[str, ...] = (
    "it's worth doing properly", "the boring parts matter most", "most problems are people problems in disguise",
    "slow progress is still progress", "the first version is never the final one", "good notes save lives, or at least weekends",
    "everyone underestimates the setup", "you can't rush the last ten percent", "a fresh pair of eyes helps",
    "the details are where it goes wrong", "being organized is half the job", "it gets easier once you see the pattern",
    "the simple fix usually works", "nobody remembers the smooth days", "asking early saves time later",
    "experience mostly means knowing what to check", "the hard part is deciding, not doing",
    "there's always one more step than you planned", "it's fine to say you don't know",
)
#: A thought added after a line.
REFLECT: tuple[str, ...] = (
    "Maybe that's just how it goes.", "Sometimes the small things are the big things.", "It's all part of it, I guess.",
    "I keep reminding myself it won't last forever.", "It's a strange kind of satisfying.", "Progress is progress.",
    "At least it's never boring.", "You learn something every time.", "That's the part I actually enjoy.",
    "Even so, I wouldn't trade it.", "It's easy to lose perspective.", "I think that's what keeps me going.",
    "Some weeks are just like that.", "We'll get there eventually.", "It makes you appreciate the quiet days.",
    "Especially at this time of year.", "I'm trying to be patient with it.", "It's humbling, in a good way.",
    "Funny how that works.", "Not that anyone asked.", "I should probably write that down.",
)
#: Reactions put before a reply.
REACT: tuple[str, ...] = (
    "Absolutely.", "Exactly.", "Agreed.", "True.", "Yes,", "Definitely.", "That makes sense.", "Sounds good.",
    "Fair point.", "I can imagine.", "Oh, interesting.", "Right?", "Same here.", "Very true.", "Good point.",
    "Makes sense.", "Yeah,", "Oh, wow.", "That tracks.", "I believe it.", "Of course.", "Totally.",
    "Nicely put.", "Ha, I can see that.", "Oh, I didn't know that.", "That sounds intense.",
    "That sounds rewarding.", "I love that.", "Impressive.", "No wonder you're tired.", "Sounds about right.",
)
