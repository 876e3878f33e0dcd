"""What people say about their own jobs in the natural renderer's small talk (original text).

:data:`JOB_TALK` maps an occupation of :data:`vmb_gym.generator.banks.OCCUPATIONS` to details
only someone in that job would mention; the ``work`` topic mixes them into its answers.
:data:`WORK_ASIDES` are job remarks anyone could make. ``[a|b]`` is a choice made each time.
"""

from __future__ import annotations

JOB_TALK: dict[str, tuple[str, ...]] = {
    "nurse": (
        "We were two people short on the ward again, so I barely sat down all shift.",
        "One of my patients went home today after three weeks. [It was lovely to see|Those days make it worth it].",
        "The new charting system logs me out every ten minutes, which is [maddening|a special kind of torture].",
        "I'm on nights again from {weekday}, so I'll be a zombie for a while.",
        "A student nurse shadowed me all day. [She asked great questions|She's going to be very good].",
    ),
    "civil engineer": (
        "The soil report came back worse than we hoped, so the foundations need a rethink.",
        "I spent the morning on site in the mud, measuring things that were already measured.",
        "The council wants another round of drawings before they sign anything off.",
        "We found an old drainage pipe nobody had on the plans. [Classic|Of course].",
        "The contractor and the client disagree on everything, and I'm [stuck in the middle|the referee].",
    ),
    "high school teacher": (
        "My tenth graders finally got the experiment to work and they were so proud of themselves.",
        "I have ninety essays to grade before {weekday}, [and I've done six|and I'm avoiding them].",
        "One of my quieter students gave a brilliant presentation today.",
        "The parents' evening ran until nine. [Everyone wanted five more minutes|My voice is gone].",
        "The photocopier broke on the one morning I needed it.",
    ),
    "software developer": (
        "The bug only happens on one customer's machine, [of course|naturally], and only on Tuesdays.",
        "We shipped the new version last night and nothing has exploded yet.",
        "I spent two hours on a problem that turned out to be a missing comma.",
        "The team wants to rewrite the whole thing, which [never ends well|is always the dream].",
        "My code review came back with forty comments. [Most were fair|Some of them were even right].",
    ),
    "pharmacist": (
        "The supplier sent us the wrong order again, so half the shelf is empty.",
        "We did almost two hundred flu shots this week. [My arm hurts from watching|The line went round the corner].",
        "A customer brought in a bag of old prescriptions from the nineties.",
        "The new software keeps flagging interactions that aren't real, so everything takes longer.",
    ),
    "architect": (
        "The client changed their mind about the staircase for the third time.",
        "I finished the model for the library late last night. [The glue is everywhere|My fingers are sticky].",
        "We're pitching for a school project, and the deadline is brutal.",
        "I went to see the site at sunset to understand how the shadows fall.",
    ),
    "chef": (
        "We tested the new menu on the staff and they ate everything, [which is a good sign|so that's promising].",
        "Our fish supplier let us down, so I rewrote half the specials at ten in the morning.",
        "The health inspection went fine, but I didn't breathe for two hours.",
        "We had a wedding party of eighty on {weekday}. [My feet still hurt|I'm still recovering].",
    ),
    "accountant": (
        "It's quarter close, so I'm living in spreadsheets until further notice.",
        "A client sent me a shoebox of receipts. An actual shoebox.",
        "The audit found nothing serious, [which is a relief|which everyone pretends they expected].",
        "I'm training a new junior, and she's quicker than I was at her age.",
    ),
    "veterinarian": (
        "We had a dog in today who ate a whole sock. He's fine, the sock isn't.",
        "I did three surgeries this morning and a very long vaccination clinic after.",
        "A farmer called at five to ask about a sick calf, so my day started early.",
        "The new x-ray machine is great, once everyone figures out the buttons.",
    ),
    "journalist": (
        "My editor cut my piece in half an hour before it went out.",
        "I spent the whole afternoon waiting outside the council chamber for a quote.",
        "A source finally called me back, [three weeks late|right when I'd given up].",
        "The fact check took longer than the writing, which is [how it should be|humbling].",
    ),
    "electrician": (
        "The wiring in that old warehouse is a museum piece. [Nobody labelled anything|Half of it isn't connected to anything].",
        "I'm training an apprentice, and he's keen, which makes up for a lot.",
        "The inspector signed off on the job first time, [which never happens|so I'm in a good mood].",
        "I spent the day in a ceiling crawlspace. [Don't ask|I found a bird's nest].",
    ),
    "physiotherapist": (
        "One of my runners is finally back on the track after months of rehab.",
        "We got new equipment at the clinic and I've been playing with it all week.",
        "I see a lot of back problems from people who sit all day, [which is most people|which is everyone really].",
        "A patient did their exercises every day for once. [I nearly cried|Miracles happen].",
    ),
    "graphic designer": (
        "The client wants the logo bigger, but also somehow smaller.",
        "The print proofs came back with the wrong colors, so we're redoing them.",
        "I'm working on a style guide that's already forty pages long.",
        "We won the pitch! [I'm still in shock|The team is celebrating with pizza].",
    ),
    "lab technician": (
        "The centrifuge made a noise today that no machine should make.",
        "We ran the whole sample batch again because one label was smudged.",
        "The lab inspection is on {weekday}, so everyone is suddenly very tidy.",
        "I spent the morning recalibrating equipment that was fine [yesterday|last week].",
    ),
    "sales manager": (
        "We hit the quarterly target with two days to spare. [The relief is unreal|I can breathe again].",
        "I'm on the road most of next week visiting clients.",
        "The trade fair stand looks great, but I've been standing for eight hours.",
        "A big account is thinking of leaving us, so it's a lot of calls this week.",
    ),
    "librarian": (
        "The book sale made more than we expected, so the children's section gets new shelves.",
        "We're moving the archive downstairs, one trolley at a time.",
        "The reading club picked a nine-hundred-page novel. [Bold choice|I have concerns].",
        "Someone returned a book that was due in two thousand and nine.",
    ),
    "paramedic": (
        "It was a quiet night until about two, and then it [wasn't|really wasn't].",
        "We got a new ambulance and it still smells new, which won't last.",
        "I had a training day on the new equipment, so no calls for once.",
        "My partner on shift swapped schedules, so I'm working with someone new.",
    ),
    "translator": (
        "The contract is eighty pages of legal language, and the deadline is {weekday}.",
        "I spent an hour on one word. [One word|It was worth it, I think].",
        "A client wants the whole manual by the end of the week, [which is optimistic|no pressure].",
        "I'm building a glossary for a new client, so future me will thank me.",
    ),
    "dentist": (
        "I had three root canals today, so I'm a little tired of looking at molars.",
        "The new x-ray machine is lovely, but the software is from another century.",
        "A patient told me they haven't flossed since school. [Honest, at least|I appreciated the honesty].",
        "We're short a hygienist, so the schedule is [a puzzle|packed].",
    ),
    "photographer": (
        "The wedding went on until midnight, and I have two thousand photos to sort through.",
        "A client wants the photos by {weekday}, which means editing every evening.",
        "I'm putting together prints for a small gallery show.",
        "The light this morning was perfect, so I got some of my best shots in months.",
    ),
    "urban planner": (
        "The public hearing on the cycle lanes lasted three hours. [Everyone had feelings|People were passionate].",
        "We're redrawing the zoning map for the east side, street by street.",
        "The traffic study finally came in, and it says what we all suspected.",
        "Half my job is meetings about meetings, [honestly|some weeks].",
    ),
    "mechanic": (
        "We had a gearbox job today that took the whole afternoon.",
        "The parts order was late again, so two customers are waiting on us.",
        "Someone brought in an old pickup that hasn't run in ten years. [We got it started|It's a project].",
        "The new apprentice asked great questions, [which is rare|so I'm hopeful].",
    ),
    "research scientist": (
        "The experiment finally worked on the fourth try, and I don't fully know why.",
        "I'm writing the grant report, which is mostly explaining why we're behind.",
        "My conference talk got accepted, so now I have to actually write it.",
        "Reviewer two wants a whole new analysis. [Of course|It's always reviewer two].",
        "The data from the field came back messy, so it's cleaning for a week.",
    ),
    "social worker": (
        "I had four home visits today, all on different sides of town.",
        "The case reviews are piling up, and we're one person down.",
        "A family I've worked with for a year finally got good news.",
        "The team meeting ran long, but we sorted out the schedule at least.",
    ),
}

WORK_ASIDES: tuple[str, ...] = (
    "We have a new colleague starting on {weekday}, and I'm meant to show them around.",
    "Our team is getting a new manager, [and nobody knows anything about her|so we'll see].",
    "I have a training day on {weekday}, which means no real work gets done.",
    "My inbox has two hundred unread emails. [I've stopped counting|I'm choosing peace].",
    "I'm presenting to the whole department next week, [and I'm nervous|which is terrifying].",
    "Someone at {workplace} microwaved fish again. [The whole floor knows|We held a meeting about it].",
    "I'm finally taking some time off at the end of the month.",
    "We're moving offices in the spring, so everything is in boxes.",
    "The data for {work} finally came in, and it's [messier|better] than we expected.",
    "I've been doing some research for {work}, and there's so much more to it than I thought.",
    "The biggest challenge with {work} is getting everyone to agree on the process.",
    "We're trying a new process for {work}, and so far it's [saving us time|mostly confusing].",
    "I want to focus on {work} this week, but something else always comes up.",
    "Half my week goes into reports about {work}, and the other half into the actual work.",
    "Someone from another team asked to see our data on {work}, which is [flattering|a little scary].",
    "I presented {work} to the team today, and the feedback was [better than I hoped|mostly positive].",
)
