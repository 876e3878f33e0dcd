"""How the natural renderer says what the template banks say (original text).

:data:`NATURAL` maps the name of a template bank of :mod:`vmb_gym.generator.banks` to other
ways of saying the same thing, with the same placeholders (``{noun}``, ``{val}``, ``{cond}``,
``{reason}``, ``{old}``, ``{rname}``, ``{relation}``...; a capitalised placeholder is the
capitalised value). A natural template keeps every placeholder that carries the content a
reader needs (the value, the setting, the condition, the old value, the relative), so an
evidence line still states its value in the words the matcher reads. Apostrophes are ASCII
here; the renderer sets most of them curly.
"""

from __future__ import annotations

NATURAL: dict[str, tuple[str, ...]] = {
    "STATE": (
        "Can I be fussy for a second? I like {noun} at {val}. Anything else and I notice within five minutes.",
        "I've been meaning to say, {noun} at {val} is what works for me. I tried the others and kept going back.",
        "{listener}, you know what, {noun} on {val} is my thing. It just feels right when I'm in here.",
        "So after a week of fiddling, I'm settled: {noun} at {val}. That's me.",
        "I'll admit I'm particular about this, but {noun} should be at {val} when it's me in the car.",
        "For what it's worth, I always end up putting {noun} on {val}. It's the one that doesn't bother me.",
        "If you ever wonder why I keep touching the screen, it's {noun}. I like it at {val}.",
        "[Honestly|Truthfully|Really], {val} for {noun} is where I'm comfortable. It just is.",
        "I think I've finally figured out {noun} for me: {val}, exactly.",
        "Quick thing while I remember, I prefer {noun} at {val}. It makes the drive easier on me.",
        "You'll laugh, but {noun} at {val} makes the whole car feel better to me.",
        "I'm a {val} person when it comes to {noun}, always have been.",
    ),
    "BASE": (
        "On a normal day I just leave {noun} at {val}. That's my default.",
        "Most days I'm fine with {noun} at {val}, nothing special.",
        "My usual for {noun} is {val}, {listener}. That covers the everyday stuff.",
        "If nothing unusual is going on, {noun} at {val} is what I go with.",
        "Day to day, I keep {noun} on {val}. It's the setting I don't have to think about.",
    ),
    "COND": (
        "With one exception: {cond}, I want {noun} at {val} instead.",
        "{Cond} is different for me. Then {noun} needs to be {val}, [honestly|really|to be honest].",
        "It changes {cond}, {listener}. I'd rather have {noun} at {val} then.",
        "Here's the odd part: {cond} I switch {noun} over to {val}. It just helps.",
        "I'm a bit particular {cond}. {Noun} at {val} makes a real difference then.",
    ),
    "REVISE": (
        "[Okay|Alright|Sure|Right], change of plan on {noun}. {Reason}, so I'd like {val} from now on.",
        "I know I said something else before, but {reason}. {Noun} at {val} going forward, please.",
        "So, {listener}, {reason}, and I've gone off my old setting. {Noun} is {val} now.",
        "Small update: {reason}, so I'm moving {noun} to {val}. We'll see if it sticks.",
        "I've been rethinking {noun}. {Reason}, so {val} is the new normal for me.",
    ),
    "REVISE_FOR_NOW": (
        "{Reason}, so for the next little while I'd like {noun} at {val}. Just until things settle.",
        "Only for now, {listener}: {noun} on {val}. {Reason}, and it helps.",
        "{Reason}. Until that's sorted, {noun} stays at {val}.",
        "It's a short-term thing, but {reason}, so {noun} at {val} for a few weeks.",
    ),
    "TRY": (
        "Let's see how {noun} feels at {val} today.",
        "Can we try {noun} on {val} for a bit?",
        "I'll give {noun} at {val} a go and see.",
        "How about {noun} at {val}? Just to test it.",
    ),
    "CORRECT_DOWN": (
        "Hmm, no, {old} is too much. Take it down to {val}.",
        "That's stronger than I thought. {Noun} down to {val}, please.",
        "[Okay|Alright|Sure|Right], {old} was a bad idea. {Val} is better, I think.",
        "Too much, too much. Back it off to {val}.",
    ),
    "CORRECT_UP": (
        "Hmm, {old} barely does anything. Bring it up to {val}.",
        "That's weaker than I wanted. {Noun} up to {val}, please.",
        "[Okay|Alright|Sure|Right], {old} isn't enough. Let's say {val}.",
        "I can hardly tell it's on. Go up to {val}.",
    ),
    "CORRECT_SWAP": (
        "Wait, no, not {old}. I meant {val}.",
        "Sorry, that's wrong. {Noun} should be {val}, not {old}.",
        "Hang on, {old} isn't what I wanted. Make it {val}.",
        "Ugh, I said the wrong thing. {Val}, not {old}.",
    ),
    "CORRECT_DOWN_NAMED": (
        "Oof, no, {old} is far too much. {Noun} at {val}, and let's leave it there.",
        "[Okay|Alright|Right], that's too strong. I'd rather have {noun} on {val} from now on.",
        "{Old} is overkill, honestly. Turn {noun} down to {val} and keep it.",
        "Let's not do {old}. {Noun} back to {val}, that's my setting.",
    ),
    "CORRECT_UP_NAMED": (
        "Hmm, {old} is hardly anything. {Noun} at {val}, and let's leave it there.",
        "[Okay|Alright|Right], that's too weak. I'd rather have {noun} on {val} from now on.",
        "{Old} doesn't do much, honestly. Turn {noun} up to {val} and keep it.",
        "Let's not do {old}. {Noun} up to {val}, that's my setting.",
    ),
    "CORRECT_SWAP_NAMED": (
        "Hold on, not {old}. {Noun} should be on {val}.",
        "Sorry, my mistake. I wanted {noun} at {val}, not {old}.",
        "No, forget {old}. {Noun} goes on {val}, and that's the one I keep.",
        "Ah, wrong one. {Val} for {noun}, not {old}.",
    ),
    "CORRECT_KEEP": (
        "There, {val} is right. Let's keep it there.",
        "Yes, that's it. {Val} is what I want for {noun}.",
        "Much better. {Val} from now on.",
    ),
    "REL_INTRO": (
        "My {relation} {rname} is coming to stay with us for a few weeks, so expect a lot of school runs.",
        "Did I mention {rname}? My {relation}. {He}'s going to be around a lot this month.",
        "I'll be giving my {relation} {rname} rides for a while. {His} car is in the store again.",
        "So my {relation} {rname} moved to the other side of town. I'll be picking {him} up now and then.",
    ),
    "REL_PREF": (
        "[Oh, |Well, |]and {rname} mentioned that {he} likes {noun} at {val} whenever {he} rides with us.",
        "When {rname} is with us, {noun} should be at {val}. {He} was very clear about that.",
        "{rname} always asks for {noun} on {val}, so let's just do that for {him}.",
        "If {rname} is in the car, {noun} at {val}. {He} gets uncomfortable otherwise.",
    ),
    "CONFLICT_REPLY": (
        "Really? That's not me at all. I want {noun} at {val}.",
        "See, we're opposites on this one. For me, {noun} is {val}.",
        "Ha, no, {listener}. {Val} is my pick for {noun}, every time.",
        "I couldn't do that. When I'm in here, {noun} goes to {val}.",
    ),
    "CONFLICT_REPLY_SHORT": (
        "Really? I'd go with {val}, [honestly|really|to be honest].",
        "Not for me, {listener}. I'm a {val} person.",
        "Ha, no. {Val} for me, please.",
        "We're different there. I'd pick {val} every time.",
    ),
    "COND_SHORT": (
        "{Cond}, though, I switch it to {val}.",
        "Except {cond}. Then I want {val}.",
        "But {cond}, {val} is better for me.",
    ),
    "COMPANION": (
        " [Oh, |Well, |]and {cnoun} {cval} while we're at it.",
        " And {cnoun} {cval}, same as always.",
        " Plus {cnoun} {cval}. That's the full routine.",
    ),
    "NEAR_MISS": (
        "The rental we had last week had {noun} stuck at {val}, which was such a strange choice.",
        "My colleague keeps {noun} at {val} in her car. I rode with her once and couldn't wait to get out.",
        "Funny thing, the taxi this morning had {noun} on {val}. I didn't say anything.",
        "Someone in a forum swears by {noun} at {val}. Not convinced, to be honest.",
        "The garage's loaner car had {noun} on {val} the whole time and I never found the menu.",
        "My neighbor leaves {noun} at {val} all year. Each to their own.",
    ),
    "NEAR_MISS_OWN": (
        "If we ever [replace this one|upgrade], maybe I'd try {noun} at {val}. Not now, though.",
        "Back in my old hatchback I used to have {noun} on {val}. Different car, different life.",
        "Just out of curiosity, would {val} for {noun} use a lot of battery? Not that I want it.",
        "I sometimes wonder what {noun} at {val} would be like. Probably terrible.",
        "In the work van {noun} is always at {val}, and nobody knows who set it.",
        "When I test drove that other car, {noun} was on {val}. Didn't buy it, obviously.",
    ),
    "NEAR_MISS_REL": (
        "My {relation} {rname} has {noun} at {val} in {his} own car. Drives me mad.",
        "{rname}, my {relation}, keeps {noun} on {val} in {his} van. Not my business, I suppose.",
        "In {rname}'s car, {noun} is always {val}. {He} never changes it.",
    ),
    "MENTION": (
        "Does anyone actually know where {noun} is in the menus? I looked for ages.",
        "{Noun} reset itself again after the update. Every single time.",
        "I meant to ask the dealer about {noun} at the last service and completely forgot.",
        "Who's been playing with {noun}? Not that I mind, I'm just curious.",
        "I read somewhere that {noun} works differently in the newer models.",
        "We should sit down and figure out {noun} properly one day.",
    ),
    "REASON_TALK": (
        "{Reason}, so it's been a long few weeks, [honestly|really|to be honest].",
        "I told my {relative} that {reason}, and they just laughed at me.",
        "Work's fine, but {reason}, so I'm running on empty.",
        "Remember when {reason}? Feels like ages ago now.",
    ),
    "PLACE_TALK": (
        "We need to be at {dest} by ten on {weekday}, so let's not be late for once.",
        "The traffic around {dest} was ridiculous again this morning.",
        "Who's taking the car to {dest} tomorrow? I've lost track.",
        "I think I left my scarf in the {seat} after we went to {dest}.",
        "Parking near {dest} has gotten so expensive. I might take the bus next time.",
        "Can you take the {seat} when we go to {dest}? I need the room for my bag.",
    ),
}

#: Listener reactions to a preference (never a value or a setting name).
ACKS: tuple[str, ...] = (
    "Noted. I'll keep it that way when I'm driving you.",
    "Fair enough, it's your comfort, and you know best what works for you.",
    "Huh, I wouldn't have guessed that, but okay, I'll remember.",
    "Got it. I'll leave it alone then, I promise.",
    "Makes sense. You always say the drive tires you out.",
    "Okay, I'll keep that in mind for next time.",
    "Sure, no problem at all. Just remind me if I forget.",
    "Good to know. I was never sure what you liked.",
    "Really? Interesting. Fine by me, either way.",
    "Alright, I'll stop touching it, I promise.",
    "That's fair. Everyone has their thing, and that's yours.",
    "Okay, if that's what works for you, that's what we'll do.",
    "Of course. If it makes the drive easier for you, that's what matters.",
    "I'll try to remember, but remind me if I forget, especially on busy mornings.",
    "That's [fair|reasonable]. I'm the same about some things, so I get it.",
    "Sure. I wish you'd told me sooner, honestly, but now I know.",
    "Okay, [noted|got it]. I'll [set it that way|keep it like that] for you.",
    "Makes sense, and it's your car [as much as mine|too], so your call.",
    "[Absolutely|Of course]. Just tell me if you ever change your mind.",
)
#: Generic replies to small talk and passing remarks (no vehicle words): a head, then now and then a comment.
REPLIES: tuple[str, ...] = (
    "[Oh, |Well, |]really?", "That sounds nice, [honestly|really|to be honest].", "I know exactly what you mean.", "Good for you.",
    "Huh.", "We'll see, I suppose.", "I wouldn't worry too much about it.", "That's a good idea, actually.",
    "Sure, why not.", "Ha, of course.", "Oh no, that's annoying.", "I was wondering about that too.",
    "Sounds like a plan.", "Same here, [honestly|really|to be honest].", "Wow, okay.", "Fair point.", "Right?", "[Oh, |Well, |]I love that.",
    "That makes two of us.", "Fingers crossed, then.", "Interesting.", "No kidding.", "Really? Since when?",
    "That's funny.", "[Oh, |Well, |]that's a shame.", "[Honestly|Truthfully|Really], same.", "I can imagine.", "[Oh, |Well, |]good.", "[Oh, |Well, |]wow.",
)
REPLY_COMMENTS: tuple[str, ...] = (
    "I hadn't heard that, but it doesn't surprise me.", "Some people have strange habits, I guess.",
    "That's one way to do it, I suppose.", "Tell me how it turns out, if you remember.",
    "I'd be curious to see that, if you ever have some time.", "[Maybe we can|Let's] [go over it|catch up on that] tonight.",
    "You always notice the little things.", "That sounds like your week in a nutshell.",
    "I think I'd have done the same, to be honest.", "Your {relative} would have something to say about that.",
    "It's always something, isn't it?", "I'm sure it will sort itself out.", "I'll take your word for it.",
    "Each to their own, but I'm with you.", "Some days are just like that.", "That's [so|very] typical.",
    "If you want, I can help with it this weekend.", "Either way, it's not worth losing sleep over.",
    "I keep meaning to ask you about that.", "You should tell that story at dinner.",
)
#: The life stories of :data:`vmb_gym.generator.banks.LIFE_STORIES`, stage by stage, said naturally.
LIFE_STORIES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("I've been looking at shelter websites. I think I'm ready for a dog.",
      "So I keep thinking about getting a dog. Is that crazy with our schedules?"),
     ("We went to the shelter and met a beagle called Pepper. I'm in love, [honestly|a little].",),
     ("Pepper comes home on {weekday}! I bought a bed, a leash and far too many toys.",),
     ("Pepper ate one of my shoes last night. [Still worth it|I forgive her], obviously.",)),
    (("I did something silly and entered a half marathon in the fall.",
      "So I'm officially registered for a half marathon. No going back now."),
     ("I ran twelve kilometers this morning, which is the longest I've ever gone.",),
     ("I pulled something in my calf, so the training is on pause for now.",),
     ("I'm running again, but slowly. My physio made me promise.",)),
    (("We're finally redoing the kitchen. The old cabinets are [coming out|gone] next week.",),
     ("The contractor called. The tiles are delayed, of course.",),
     ("The kitchen is basically a construction site, so we've been living on takeout.",),
     ("The kitchen is finished, and it looks [amazing|even better than the drawings].",)),
    (("I put in an application for the team lead role. We'll see.",),
     ("I got a second interview for the lead role, on {weekday}. I'm [nervous|trying to stay calm].",),
     ("I didn't get the lead role. I'm disappointed, but I'll live.",),
     ("They offered me a different project instead, and honestly, it might suit me better.",)),
    (("I started learning Spanish with one of those apps.",),
     ("Forty days in a row on the Spanish app! [My owl is proud of me|Small victories].",),
     ("I had my first real conversation class in Spanish, and I understood about half.",),
     ("I'm thinking of switching to evening classes for Spanish. The app only gets you so far.",)),
    (("Our landlord is raising the rent again, so we're thinking about moving.",),
     ("We've been looking at apartments in {district}. Some of them are [tiny|strange].",),
     ("We found a place in {district} with a balcony. [I can't stop smiling|It even gets the afternoon sun].",),
     ("Moving day is the end of the month, so the boxes are coming out.",)),
    (("I want to try growing tomatoes this year. [Wish me luck|How hard can it be]?",),
     ("The tomato seedlings are up! Tiny, but they're there.",),
     ("The slugs got half of the seedlings overnight. I'm [devastated|furious].",),
     ("First ripe tomato of the year today. [I ate it standing in the yard|It was worth every slug].",)),
)
