"""Word pools and sentence templates of the scenario generator (original text, ASCII only).

Every template is a ``str.format`` pattern. Placeholders used across the banks:
``{noun}`` a setting ("the ambient light colour"), ``{val}`` a rendered value ("purple"),
``{listener}`` the other person's first name, ``{cond}`` a condition phrase ("at night"),
``{reason}`` a reason clause, ``{rname}``/``{relation}`` a relative, ``{he}``/``{him}``/``{his}``
pronouns. Keeping the banks large is what stops a policy from matching one fixed sentence.
"""

from __future__ import annotations

# ----------------------------------------------------------------------------- people
MALE_FIRST: tuple[str, ...] = (
    "Aaron", "Adrian", "Alan", "Andre", "Arthur", "Ben", "Bruno", "Caleb", "Carl", "Colin", "Daniel",
    "Derek", "Diego", "Elliot", "Ethan", "Felix", "Frank", "Gavin", "Graham", "Hector", "Hugo", "Ian",
    "Isaac", "Jonah", "Julian", "Kenji", "Kevin", "Leon", "Lucas", "Malcolm", "Marcus", "Mateo",
    "Nathan", "Neil", "Omar", "Oscar", "Owen", "Pablo", "Quentin", "Rafael", "Ravi", "Rory", "Samuel",
    "Simon", "Theo", "Tobias", "Victor", "Wesley", "Yusuf", "Zane",
)
FEMALE_FIRST: tuple[str, ...] = (
    "Abigail", "Adele", "Aisha", "Alice", "Amara", "Beatrice", "Bianca", "Camila", "Carmen", "Chloe",
    "Clara", "Daphne", "Delia", "Elena", "Elise", "Fatima", "Fiona", "Gemma", "Greta", "Hana", "Helen",
    "Ines", "Iris", "Jade", "Joanna", "Julia", "Keiko", "Lena", "Lina", "Lucia", "Mabel", "Maya",
    "Mei", "Miriam", "Nadia", "Naomi", "Nora", "Olivia", "Paula", "Priya", "Rachel", "Rosa", "Sabrina",
    "Sofia", "Tamsin", "Tessa", "Ursula", "Vera", "Wendy", "Yara",
)
LAST_NAMES: tuple[str, ...] = (
    "Abbott", "Alvarez", "Baker", "Barnes", "Bishop", "Brennan", "Castillo", "Chen", "Coleman",
    "Dalton", "Das", "Donovan", "Ellis", "Farrell", "Fischer", "Fleming", "Garcia", "Gordon", "Hale",
    "Hartley", "Hayes", "Ibarra", "Jensen", "Kaur", "Keller", "Kim", "Lambert", "Lindqvist", "Lopez",
    "Mahoney", "Marsh", "Mendez", "Moreau", "Nakamura", "Novak", "Okafor", "Olsen", "Park", "Patel",
    "Quinn", "Ramos", "Reyes", "Rossi", "Sandoval", "Schmidt", "Shaw", "Sullivan", "Tanaka", "Torres",
    "Underwood", "Vance", "Walsh", "Weber", "Whitaker", "Yamada", "Zhou",
)

#: (occupation, workplace, work nouns used in chit-chat)
OCCUPATIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("nurse", "the county hospital", ("the night rota", "a double shift", "the new ward manager", "patient handovers")),
    ("civil engineer", "the bridge project office", ("the load tests", "the site survey", "the permit review", "the concrete pour")),
    ("high school teacher", "Northfield High", ("the exam papers", "the parent evening", "the field trip", "grading essays")),
    ("software developer", "a logistics startup", ("the release", "a nasty bug", "the code review", "the sprint demo")),
    ("pharmacist", "the pharmacy on Main Street", ("the stock audit", "a supplier delay", "the flu vaccine clinic", "the weekend cover")),
    ("architect", "a small design studio", ("the library renovation", "the client sketches", "the planning board", "the model")),
    ("chef", "a bistro downtown", ("the new menu", "the supplier order", "the health inspection", "a private party")),
    ("accountant", "a mid-size audit firm", ("the quarter close", "the tax filings", "a client audit", "the reconciliation")),
    ("veterinarian", "the animal clinic", ("a surgery list", "the emergency calls", "the vaccination drive", "a difficult horse")),
    ("journalist", "the city paper", ("the council story", "a long interview", "the deadline", "the fact check")),
    ("electrician", "a contracting company", ("the warehouse rewiring", "the inspection", "a tricky panel", "the apprentice")),
    ("physiotherapist", "a sports clinic", ("the rehab plans", "a marathon runner", "the new equipment", "the clinic schedule")),
    ("graphic designer", "a branding agency", ("the logo pitch", "the print proofs", "the client feedback", "the style guide")),
    ("lab technician", "a research institute", ("the sample batch", "the centrifuge", "the lab inspection", "the data logs")),
    ("sales manager", "a furniture company", ("the regional targets", "the trade fair", "a big account", "the quarterly review")),
    ("librarian", "the central library", ("the book sale", "the reading club", "the archive move", "the new catalogue")),
    ("paramedic", "the ambulance service", ("the night calls", "the training day", "the new ambulance", "the shift swap")),
    ("translator", "a legal translation office", ("a long contract", "the glossary", "the court deadline", "a rush job")),
    ("dentist", "a family dental practice", ("the patient list", "the new x-ray machine", "a root canal", "the hygienist rota")),
    ("photographer", "a freelance studio", ("the wedding shoot", "the photo edits", "the gallery show", "a product catalogue")),
    ("urban planner", "the city planning office", ("the cycle lane plan", "the public hearing", "the zoning map", "the traffic study")),
    ("mechanic", "a garage on the ring road", ("a gearbox job", "the parts order", "an old pickup", "the inspection bay")),
    ("research scientist", "the university lab", ("the grant report", "the experiment", "the conference talk", "a paper revision")),
    ("social worker", "the family services office", ("the case reviews", "a home visit", "the team meeting", "the paperwork")),
)

#: Side characters: relation word -> gender ("m"/"f").
RELATIVES: tuple[tuple[str, str], ...] = (
    ("nephew", "m"), ("niece", "f"), ("sister", "f"), ("brother", "m"), ("mother", "f"), ("father", "m"),
    ("aunt", "f"), ("uncle", "m"), ("cousin", "f"), ("grandmother", "f"), ("grandfather", "m"),
    ("godson", "m"), ("goddaughter", "f"), ("best friend", "m"), ("old roommate", "f"),
)
#: Relations between the regular users of one car (symmetric words).
HOUSEHOLD_RELATIONS: tuple[str, ...] = ("partner", "sibling", "housemate", "colleague", "close friend", "neighbour")

DISTRICTS: tuple[str, ...] = (
    "Eastgate", "Old Harbor", "Millbrook", "the Riverside district", "Cedar Hill", "Westfield", "the Arts Quarter",
    "Brookside", "Northpoint", "the Docklands", "Stonebridge", "Linden Park", "the university quarter", "Fairview",
)
ACTIVITIES: tuple[tuple[str, str], ...] = (
    # (condition phrase for a rule, phrase for a query situation)
    ("on the way to the gym", "heading to the gym"),
    ("when I drive to choir practice", "driving to choir practice"),
    ("on long highway trips", "setting off on a long highway trip"),
    ("on the school run", "doing the school run"),
    ("when I'm heading to a night shift", "heading to a night shift"),
    ("on the way to the airport", "heading to the airport"),
    ("when we go to the farmers market", "going to the farmers market"),
    ("on the way to a job interview", "driving to a job interview"),
    ("when I drive to my pottery class", "driving to a pottery class"),
    ("on the way to the hiking trail", "driving out to the hiking trail"),
    ("when I'm going to the hospital for a check-up", "going to the hospital for a check-up"),
    ("on the drive to the lake house", "driving to the lake house"),
)
DESTINATIONS: tuple[str, ...] = (
    "Harbor Airport", "Maple Street Clinic", "Central Station", "Greenway Mall", "Lakeside Park", "City Library",
    "Oakwood Stadium", "Riverside Hospital", "Pine Hill School", "Union Square", "Westfield Market", "Bayview Pier",
    "Sunset Golf Club", "North Campus", "Grand Theater", "Elm Court Apartments", "Hillcrest Church", "Old Town Hall",
)
SONGS: tuple[tuple[str, str], ...] = (
    ("Harbor Lights", "Nina Vale"), ("Paper Kites", "The Loomis Band"), ("Golden Hour Drive", "Ray Okoro"),
    ("Slow Rivers", "Hazel & Finch"), ("Midnight Diner", "Carlos Mena"), ("Northern Line", "The Quiet Kind"),
    ("Blue Orchard", "Ada Morrow"), ("Summer Static", "Velvet Radio"), ("Long Way Home", "Jonas Perrin"),
    ("Copper Sky", "Lila Grant"), ("City of Lanterns", "Echo Park Choir"), ("Falling Slowly Upward", "Mara Finn"),
)
VIDEOS: tuple[str, ...] = (
    "Ocean Giants", "The Baking Contest", "Space Rangers", "Mountain Trails", "Wild Kitchens", "Robot Academy",
    "The Lost Map", "Jungle Friends", "History in Ten Minutes", "Car Builders", "Tiny Farm", "Deep Sea Secrets",
)
STATIONS: tuple[str, ...] = (
    "News FM", "Music FM", "City Jazz", "Classic Rock 101", "Morning Talk", "Coastal Country", "Indie Wave",
    "Sports Live", "Golden Oldies", "Chill Lounge",
)

#: Reasons for a revision: (clause after "since"/"because", past form for "back when ...", "again" form, "over" form
#: for a request after a revision made for a while only, ``GeneratorOptions.returns_to_usual``).
REASONS: tuple[tuple[str, str, str, str], ...] = (
    ("my back has been bothering me", "my back was bothering me", "My back is acting up again",
     "My back is fine again"),
    ("I started the early shift", "I was on the early shift", "I'm back on the early shift",
     "I'm done with the early shift"),
    ("the weather turned cold", "it was so cold out", "It's freezing again", "The cold snap has passed"),
    ("my eye doctor told me to", "my eyes were strained", "My eyes are strained again",
     "The eye doctor says my eyes are fine now"),
    ("I've been getting headaches", "I had those headaches", "The headaches are back", "The headaches have stopped"),
    ("I'm training for the half marathon", "I was training for the half marathon", "I'm in marathon training again",
     "The half marathon is behind me"),
    ("the summer heat arrived", "we had that heatwave", "It's a heatwave again", "The heatwave finally broke"),
    ("I hurt my shoulder", "my shoulder was hurt", "My shoulder is sore again", "My shoulder has healed up"),
    ("we got the new baby seat", "the baby seat was in", "The baby seat is back in", "The baby seat is out of the car"),
    ("I've been driving at dawn a lot", "I was driving at dawn every day", "I'm doing the dawn drives again",
     "No more dawn drives for me"),
    ("I'm recovering from the flu", "I had the flu", "I've caught the flu again", "I'm over the flu at last"),
    ("I've been commuting on the highway", "I was commuting on the highway", "I'm commuting on the highway again",
     "My highway commute is over"),
)

# ----------------------------------------------------------------------------- preference speech
STATE: tuple[str, ...] = (
    "I've decided I like {noun} at {val}.",
    "For the record, {noun} works best for me at {val}.",
    "{listener}, remember that I want {noun} at {val}.",
    "Honestly, {val} is what I want for {noun}.",
    "When I'm in the car, keep {noun} at {val}. That suits me.",
    "I tried a few settings and {val} is the one for {noun}.",
    "Whenever I ride in this car, {noun} should be {val}.",
    "My ideal is {noun} at {val}, nothing fancy.",
    "I keep coming back to {val} for {noun}. That's my setting.",
    "Just so you know, I prefer {noun} set to {val}.",
    "Please set {noun} to {val} for me from now on.",
    "{Val} for {noun}. Trust me, that's the sweet spot.",
    "You know what? {noun} at {val} feels just right to me.",
    "After a lot of fiddling I'm sure: {val} for {noun}.",
    "If it's me in the car, {noun} goes to {val}.",
    "I'm happiest with {noun} on {val}, {listener}.",
    "Note this down somewhere: {noun}, {val}, every time.",
    "I like {noun} at {val}. Anything else bugs me.",
)
BASE: tuple[str, ...] = (
    "Normally I keep {noun} at {val}.",
    "Most of the time {noun} should be {val} for me.",
    "My everyday setting for {noun} is {val}.",
    "Usually I want {noun} at {val}, {listener}.",
    "On an ordinary drive I go with {val} for {noun}.",
    "By default, {noun} at {val} is what I like.",
)
COND: tuple[str, ...] = (
    "{Cond}, though, I want {noun} at {val} instead.",
    "One exception: {cond}, make {noun} {val}.",
    "{Cond} it's different for me: {noun} at {val}.",
    "But {cond} I switch {noun} to {val}, {listener}.",
    "Keep in mind that {cond} {noun} has to be {val}.",
    "{Cond}, {noun} at {val} works much better for me.",
    "Here's my rule: {cond}, {noun} goes to {val}.",
)
REVISE: tuple[str, ...] = (
    "I'm changing {noun}: {reason}, so {val} from now on.",
    "Since {reason}, let's make {noun} {val} going forward.",
    "Forget what I said before about {noun}. {Reason}, and I want {val} now.",
    "{listener}, new plan for {noun}: {val}. {Reason}.",
    "Update on {noun}: {val} from today, because {reason}.",
    "I've switched my preference for {noun} to {val}; {reason}.",
)
#: A revision for a while only (``GeneratorOptions.returns_to_usual``): the request later says its reason is over.
REVISE_FOR_NOW: tuple[str, ...] = (
    "{Reason}, so {noun} at {val} for the time being.",
    "Just until this passes: {noun} on {val}. {Reason}.",
    "Because {reason}, I need {noun} at {val} for a few weeks.",
    "{listener}, {noun} goes to {val} for now; {reason}.",
    "Temporarily, make {noun} {val}. {Reason}.",
)
TRY: tuple[str, ...] = (
    "Let's try {noun} at {val}.",
    "Put {noun} on {val} for me.",
    "Can you set {noun} to {val}?",
    "I'll go with {noun} at {val} today.",
    "Set {noun} to {val}, would you?",
)
CORRECT_DOWN: tuple[str, ...] = (
    "Hmm, {old} is too much. Lower it a bit, to {val}.",
    "No, that's too strong. Bring {noun} down to {val}.",
    "Too high. Make it {val} instead.",
    "Ugh, {old} is overkill. {Val} is better.",
    "Actually, dial it back to {val}. {Old} was too much.",
)
CORRECT_UP: tuple[str, ...] = (
    "Hmm, {old} is not enough. Raise it a bit, to {val}.",
    "That's too weak. Bring {noun} up to {val}.",
    "Too low. Make it {val} instead.",
    "{Old} does nothing for me. {Val} is better.",
    "Actually, bump it up to {val}. {Old} was too little.",
)
CORRECT_SWAP: tuple[str, ...] = (
    "Wait, not {old}. I meant {val}.",
    "No, {old} looks wrong. Switch {noun} to {val}.",
    "Sorry, I misspoke: {val}, not {old}.",
    "Scratch that, {old} is a mistake. {Val} is the one I want.",
    "Hmm, {old} isn't it. Change it to {val}, please.",
)
#: Corrections that say the setting again (``GeneratorOptions.restated_corrections``): the second line names
#: the setting and both values, as most corrections between people do, and ends on the value that holds.
CORRECT_DOWN_NAMED: tuple[str, ...] = (
    "Hmm, {old} is too much. Set {noun} to {val} from now on.",
    "No, that's way too strong. {Noun} at {val} is what I actually want.",
    "Ouch, {old} is a lot. Lower {noun} to {val} and leave it there.",
    "Too much. Let's keep {noun} at {val} instead of {old}.",
    "{Old} was overdoing it. Bring {noun} back down to {val} for good.",
)
CORRECT_UP_NAMED: tuple[str, ...] = (
    "Hmm, {old} is too faint. Set {noun} to {val} from now on.",
    "That's too weak. {Noun} at {val} is what I actually want.",
    "I can barely notice {old}. Raise {noun} to {val} and leave it there.",
    "Not enough. Let's keep {noun} at {val} instead of {old}.",
    "{Old} was too little. Bring {noun} up to {val} for good.",
)
CORRECT_SWAP_NAMED: tuple[str, ...] = (
    "Wait, not {old}. I want {noun} on {val}.",
    "Sorry, wrong one. {Noun} should be {val}, not {old}.",
    "Scratch {old}. Change {noun} to {val}, and keep it that way.",
    "No, {old} isn't right. {Noun} goes to {val}, please.",
    "Oops, I meant {val} for {noun}, not {old}.",
)
CORRECT_KEEP: tuple[str, ...] = (
    "Yes, {val} is right. Keep it like that from now on.",
    "Perfect, {val} it is. That's my setting.",
    "Much better. {Val} is what I want for {noun}.",
)
REL_INTRO: tuple[str, ...] = (
    "My {relation} {rname} is going to stay with us for a few weeks.",
    "{rname}, my {relation}, is visiting again next month.",
    "I'll be driving my {relation} {rname} around a lot this spring.",
    "Did I tell you my {relation} {rname} moved nearby?",
    "My {relation} {rname} needs rides to work until {his} car is fixed.",
)
REL_PREF: tuple[str, ...] = (
    "{rname} told me {he} likes {noun} at {val} whenever {he} rides with us.",
    "When {rname} is in the car, {noun} has to be {val}. {He} insists.",
    "{rname} always asks for {noun} at {val}, so let's remember that for {him}.",
    "For {rname}, {noun} at {val}. {He} made that very clear.",
)
CONFLICT_REPLY: tuple[str, ...] = (
    "Really? I can't stand that. For me {noun} should be {val}.",
    "We're different there. I want {noun} at {val}.",
    "Not for me, {listener}. {Val} is my choice for {noun}.",
    "Ha, no. When I'm in here, {noun} goes to {val}.",
    "I see it the other way: {noun} at {val} is much better.",
)
#: Replies in the same conversation, right after the other person named the setting (no noun).
CONFLICT_REPLY_SHORT: tuple[str, ...] = (
    "Really? I can't stand that. For me it should be {val}.",
    "Not for me, {listener}. {Val}, please.",
    "Ha, no. When I'm driving I go with {val}.",
    "We're different there. I'd pick {val} every time.",
)
#: A condition right after the everyday setting was stated in the same conversation (no noun).
COND_SHORT: tuple[str, ...] = (
    "{Cond}, though, I switch it to {val}.",
    "Except {cond}. Then I want {val}.",
    "But {cond} it has to be {val} instead.",
)
COMPANION: tuple[str, ...] = (
    " Oh, and {cnoun} {cval} too.",
    " And I like {cnoun} {cval} at the same time.",
    " Plus {cnoun} {cval}, always.",
    " Same routine: {cnoun} {cval}.",
)
NEAR_MISS: tuple[str, ...] = (
    "In the rental last week {noun} was stuck at {val}. Weird choice.",
    "My colleague has {noun} at {val} in her car. Not for me.",
    "The dealership demo car had {noun} on {val}.",
    "I read a review that says most people put {noun} at {val}.",
    "Funny, the taxi this morning had {noun} at {val}.",
    "My neighbour keeps {noun} at {val}, I could never.",
    "The loaner the garage gave me had {noun} at {val} and I couldn't change it.",
    "At the car show every model was demoed with {noun} at {val}.",
    "The instructor's car in driving school had {noun} on {val}, I still remember it.",
    "Somebody online swears by {noun} at {val}. Sounds wrong to me.",
)
#: Near misses said by the person a query is about: hypotheticals, other cars, other times.
NEAR_MISS_OWN: tuple[str, ...] = (
    "If we ever trade this car in, maybe I'd try {noun} at {val}. Not now though.",
    "Years ago in my old hatchback I had {noun} at {val}. Different car, different life.",
    "On the rental in Lisbon I left {noun} at {val} the whole trip, only because I couldn't find the menu.",
    "Hypothetically, would {val} for {noun} drain the battery? Just curious.",
    "I wonder what {noun} at {val} would feel like. Probably awful.",
    "My brother-in-law thinks I should put {noun} on {val}. He's not driving though.",
    "In my work van {noun} is always stuck at {val}, nobody knows why.",
    "Is {val} even a normal setting for {noun}? The manual is useless.",
    "When I test drove that SUV, {noun} was set to {val}. I didn't buy it.",
    "Imagine someone choosing {val} for {noun} on purpose.",
)
#: A relative's preference in another car (near miss for the coreference queries).
NEAR_MISS_REL: tuple[str, ...] = (
    "My {relation} {rname} keeps {noun} at {val} in {his} own car.",
    "{rname}, my {relation}, set {noun} to {val} in {his} van. Each to their own.",
    "In {rname}'s car {noun} is always {val}. {He} never touches it.",
)
#: Mentions of a setting without any value (questions, complaints, other times).
MENTION: tuple[str, ...] = (
    "Does anyone know how to change {noun} in this car?",
    "{Noun} keeps resetting every time the software updates.",
    "I couldn't find {noun} in the menu yesterday. So many submenus.",
    "Who touched {noun} again?",
    "Remind me to ask the dealer about {noun} at the next service.",
    "Is there a shortcut for {noun}, or do I always have to dig through the screen?",
    "The manual spends three pages on {noun}. Three pages!",
    "Did you notice {noun} changed on its own last week?",
    "I read that {noun} was redesigned in the new model year.",
    "We should look at {noun} together some time, I never understood it.",
)
#: Talk about a reason (state-shift background) with no vehicle setting.
REASON_TALK: tuple[str, ...] = (
    "{Reason}, honestly it's been a long month.",
    "I told my {relative} that {reason}, and got no sympathy at all.",
    "Work is fine, but {reason}, so I'm tired.",
    "Remember when {reason}? That feels like ages ago.",
)
#: Talk about a query's condition with no vehicle setting, by condition kind.
CONDITION_TALK: dict[str, tuple[str, ...]] = {
    "night": ("Driving after dark is getting harder for me.", "I hate driving at night in winter.",
              "It gets dark so early now, it's depressing."),
    "rain": ("It's supposed to rain all week.", "Driving in the rain makes me nervous.",
             "I got soaked in the rain on the way in."),
    "district": ("The roadworks in {d} are still going on.", "I drove through {d} on {weekday}, the new bakery is open.",
                 "Rents in {d} have gone crazy."),
    "passenger": ("I'm picking {name} up after work on {weekday}.", "{name} rides with me most days now.",
                  "{name} and I should carpool more often."),
    "activity": ("I was {act} earlier and forgot my keys.", "Next time I'm {act} I'll leave earlier.",
                 "Traffic was awful when I was {act} last week."),
}
#: Seat and destination talk with no preference (shares the words of query situations).
PLACE_TALK: tuple[str, ...] = (
    "We need to be at {dest} by ten on {weekday}.",
    "Traffic around {dest} was a nightmare again.",
    "Who's driving to {dest} tomorrow?",
    "I left my umbrella in the {seat} after the trip to {dest}.",
    "Can you sit in the {seat} on the way to {dest}? I need the space.",
    "Parking at {dest} costs a fortune now.",
    "The kids fought over the {seat} the whole way to {dest}.",
)
#: Words after a setting's name that say it is for the whole car (``GeneratorOptions.whole_car``).
WHOLE_CAR: tuple[str, ...] = (
    "for the whole car", "for everyone", "for all of us", "all around the cabin", "for all seats",
    "everywhere in the car", "for the entire cabin", "for every seat",
)

#: How a request names a device without its setting (``GeneratorOptions.device_requests``), per module with
#: several settings; modules left out always name the setting.
DEVICE_NOUNS: dict[str, tuple[str, ...]] = {
    "seat": ("my seat", "the seat", "my seat settings"),
    "airConditioner": ("the climate", "the AC", "the air"),
    "HUD": ("my HUD settings", "the head-up display", "the HUD"),
    "instrumentPanel": ("the dash", "the instrument panel", "the panel"),
    "centerInformationDisplay": ("the main screen", "the center display"),
    "overheadScreen": ("the overhead screen", "the rear screen"),
    "light": ("the lighting", "the lights"),
    "steeringWheel": ("the steering wheel", "the wheel"),
    "music": ("the music", "my music settings"),
    "navigation": ("the navigation", "the nav settings"),
    "rearviewMirror": ("the mirrors", "my mirror settings"),
}

ACKS: tuple[str, ...] = (
    "Noted.", "Got it.", "Okay, I'll remember that.", "Fair enough.", "Makes sense.", "Sure thing.",
    "Alright, no problem.", "Good to know.", "I'll keep that in mind.", "Okay, if that's what works.",
    "Huh, I wouldn't have guessed.", "Fine by me.", "Understood.", "Sounds reasonable.",
)

# ----------------------------------------------------------------------------- query speech
REQUEST: tuple[str, ...] = (
    "Can you set {noun} the way I like it?",
    "Put {noun} back to my usual, please.",
    "I'd like {noun} set up for me.",
    "Let's get {noun} right for me.",
    "Could you fix {noun}? You know how I like it.",
    "Adjust {noun} to my preference.",
    "Set {noun} for me, please.",
    "Sort out {noun} for me before we go.",
)
REQUEST_REL: tuple[str, ...] = (
    "Please set {noun} the way my {relation} likes it.",
    "Can you adjust {noun} for my {relation}?",
    "Set {noun} how my {relation} prefers.",
    "My {relation} is here, so let's do {noun} {his} way.",
)
REQUEST_PAST: tuple[str, ...] = (
    "{again}. Set {noun} the way I had it back then.",
    "{again}, so put {noun} back to what I used at that time.",
    "{again}. Go back to my old setting for {noun} from then.",
)
#: Requests that name neither the setting nor its device (``GeneratorOptions.indirect_requests``): the situation
#: the query's narrative describes is the one a conditional rule in the history names.
REQUEST_SITUATION: tuple[str, ...] = (
    "You know what I like for a drive like this. Set it up, please.",
    "Do the usual for this, please.",
    "Set things up the way I always have them in this situation.",
    "Make the car the way I want it for this.",
    "Adjust things the way I like them for a drive like this.",
    "Use the setting I always pick for this.",
)
#: The same for a state-shift query: the reason given with a revision, said again ({again}); the target is an
#: earlier revision (``_PAST``) or the latest one (``_NOW``).
REQUEST_REASON_PAST: tuple[str, ...] = (
    "{again}. Put things back the way I had them then.",
    "{again}, so go back to what I used at that time.",
    "{again}. Change it to how it was back then.",
)
REQUEST_REASON_NOW: tuple[str, ...] = (
    "{again}. Set it to what I switched to for that.",
    "{again}, so use what I changed it to.",
    "{again}. Do what I asked for last time.",
)
#: Requests after a revision made for a while only, whose reason is over (``{again}``: the reason's "over" form).
REQUEST_OVER: tuple[str, ...] = (
    "{again}, so put {noun} back to my usual.",
    "{again}. Set {noun} back to normal for me.",
    "{again}, so I can go back to my regular {noun}.",
    "{again}. Return {noun} to what I had before.",
)
#: The same request without its reason (a quarter of them).
REQUEST_STANDARD: tuple[str, ...] = (
    "Set {noun} back to my standard setting, please.",
    "Put {noun} back the way I normally have it.",
)
REQUEST_REASON_OVER: tuple[str, ...] = (
    "{again}. Put things back to my usual.",
    "{again}, so back to my normal setting, please.",
    "{again}. Undo what I changed for it.",
)
COMPANION_REQ: tuple[str, ...] = (" And the rest of my usual routine with it.", " Do my whole routine for that.", "")

# ----------------------------------------------------------------------------- chit-chat
TOPIC_LINES: dict[str, tuple[str, ...]] = {
    "work": (
        "Work was a lot today. {work} took most of the afternoon.",
        "I have to deal with {work} again tomorrow.",
        "My manager wants an update on {work} by {weekday}.",
        "I finally finished {work}. What a relief.",
        "Everyone at {workplace} is stressed about {work}.",
        "I might stay late on {weekday} because of {work}.",
        "Do you think I should ask for help with {work}?",
        "The meeting about {work} ran over by an hour.",
    ),
    "food": (
        "I'm thinking of making {food} tonight.",
        "That new place near {district} does amazing {food}.",
        "We're out of {grocery} again, can you pick some up?",
        "I tried a recipe for {food} and it was a disaster.",
        "Lunch was {food} from the cart outside work.",
        "Should we invite people over for {food} on {weekday}?",
    ),
    "weekend": (
        "Any plans for the weekend?",
        "I was thinking we could go to {place} on Saturday.",
        "The forecast for {weekday} looks {weather}.",
        "I'd love a quiet Sunday for once.",
        "There's a {event} at {place} this weekend.",
        "We could visit {district} if the weather holds.",
    ),
    "family": (
        "My {relative} called last night, all good there.",
        "I should visit my {relative} soon, it's been weeks.",
        "My {relative} wants to plan a trip in the summer.",
        "Did you send the card to your {relative}?",
        "My {relative} started a new hobby: {hobby}.",
    ),
    "hobby": (
        "I've been getting into {hobby} lately.",
        "My {hobby} group meets on {weekday} now.",
        "I bought new gear for {hobby}, probably too much.",
        "I watched a long video about {hobby} instead of sleeping.",
        "Do you want to try {hobby} with me sometime?",
    ),
    "errands": (
        "I need to drop the parcel at the post office.",
        "The car is due for a wash, it's filthy.",
        "Don't forget the dentist appointment on {weekday}.",
        "I still have to return those shoes.",
        "The pharmacy closes early on {weekday}, remember.",
        "Can we stop at the hardware store on the way back?",
    ),
    "news": (
        "Did you hear they're closing the road through {district}?",
        "Apparently there's a new bus line to {place}.",
        "The council finally approved the park in {district}.",
        "Traffic near {place} was terrible this morning.",
        "They're opening a {food} festival in {district} next month.",
    ),
    "weather": (
        "It looks {weather} out there today.",
        "I hope it stays {weather} for the weekend.",
        "The mornings are getting darker.",
        "That storm last night kept me awake.",
        "Perfect weather for a walk, honestly.",
    ),
}
REPLIES: tuple[str, ...] = (
    "Oh, really?", "That sounds nice.", "Ugh, I know the feeling.", "Good for you.", "Tell me more.",
    "Hm, we'll see.", "I wouldn't worry too much.", "That's a good idea.", "Sure, why not.",
    "Ha, typical.", "Let me know how it goes.", "I can help with that if you want.",
    "Oh no, that's annoying.", "I was wondering about that too.", "Sounds like a plan.",
    "Maybe next week.", "Honestly, same.", "I'll think about it.", "Wow, okay.", "Fair point.",
    "Let's talk about it tonight.", "I'm sure it'll be fine.", "Nice, I'm a bit jealous.",
    "You should go for it.", "That's what I said last time!", "Hmm, not sure about that.",
)
FILL: dict[str, tuple[str, ...]] = {
    "weekday": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
    "food": ("ramen", "tacos", "lasagna", "curry", "dumplings", "paella", "pho", "falafel", "risotto", "pancakes"),
    "grocery": ("milk", "eggs", "coffee", "bread", "rice", "olive oil", "lemons", "butter"),
    "place": ("the botanical garden", "the old fort", "the science museum", "the beach", "the market hall",
              "the climbing gym", "the lake", "the cinema"),
    "weather": ("rainy", "sunny", "grey", "windy", "cold", "warm", "foggy"),
    "event": ("craft fair", "jazz night", "food market", "book swap", "charity run", "open-air film"),
    "hobby": ("bouldering", "sourdough baking", "birdwatching", "chess", "woodworking", "salsa dancing",
              "watercolour painting", "cycling", "gardening", "photography"),
}
#: Background storylines (distractor chains with their own revisions): each stage is one line.
LIFE_STORIES: tuple[tuple[str, ...], ...] = (
    ("I'm thinking about adopting a dog.", "We met a dog at the shelter, a beagle called Pepper.",
     "Pepper comes home on {weekday}!", "Pepper chewed my shoe. Still worth it."),
    ("I signed up for a half marathon in the autumn.", "My long run was twelve kilometres today.",
     "I pulled a muscle, so training is on hold.", "Back to running, slowly this time."),
    ("We're redoing the kitchen, finally.", "The contractor says the tiles arrive late.",
     "The kitchen is a building site, we eat takeaway every night.", "The kitchen is done and it looks great."),
    ("I applied for the team lead position.", "I have the second interview for the lead job on {weekday}.",
     "I didn't get the lead job. Disappointed.", "They offered me a different project instead, which is fine."),
    ("I'm learning Spanish on an app.", "Forty days streak on the Spanish app!",
     "I had my first conversation class in Spanish.", "I think I'll switch to evening classes for Spanish."),
    ("My landlord wants to raise the rent.", "We're looking at flats in {district}.",
     "We found a flat in {district} with a balcony.", "Moving day is set for the end of the month."),
    ("I want to plant tomatoes this year.", "The tomato seedlings are up.",
     "Slugs ate half the seedlings.", "First ripe tomato today!"),
)
