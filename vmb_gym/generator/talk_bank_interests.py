"""What people do for the love of it, for the natural renderer's talk about interests (original text).

:data:`INTERESTS` maps an interest to the same kinds of pieces as a job in
:mod:`vmb_gym.generator.talk_bank_fields` (``stuff``, ``doing``, ``world``, ``snag``); each
person has two interests, drawn from their name, so they keep them through the history. The
frames of a conversation about an interest (``OPEN``, ``ASK`` with its answers ``QA``, ``RELATE``) use the
placeholders of :mod:`vmb_gym.generator.talk_bank_ideas`.
"""

from __future__ import annotations

INTERESTS: dict[str, dict[str, tuple[str, ...]]] = {
    "astronomy": {"stuff": ("the new telescope mount", "the meteor shower", "my star charts", "the dark-sky trip"),
                  "doing": ("photographing Jupiter's moons", "aligning the telescope", "logging variable stars"),
                  "world": ("in the astronomy club", "under a clear sky"), "snag": ("the light pollution", "the clouds")},
    "pottery": {"stuff": ("the glaze tests", "the kiln schedule", "my wobbly bowls", "the studio shelves"),
                "doing": ("throwing mugs", "trimming bowls", "mixing a celadon glaze"),
                "world": ("at the pottery studio", "at the wheel"), "snag": ("the cracked pieces", "the kiln waiting list")},
    "birdwatching": {"stuff": ("the spring migration", "my bird list", "the new binoculars", "the wetland hide"),
                     "doing": ("counting waders at dawn", "learning warbler songs", "sketching herons"),
                     "world": ("out on the marsh", "in the birding group"), "snag": ("the early starts", "the wind")},
    "chess": {"stuff": ("the club tournament", "my opening repertoire", "the endgame puzzles", "the online ladder"),
              "doing": ("studying rook endings", "replaying old games", "coaching the junior players"),
              "world": ("at the chess club", "over the board"), "snag": ("the time pressure", "my blunders")},
    "choir singing": {"stuff": ("the winter concert", "the alto line", "the new conductor", "the rehearsal recordings"),
                      "doing": ("learning the harmonies", "warming up my voice", "practicing breath control"),
                      "world": ("in the choir", "on the risers"), "snag": ("the tricky key change", "the cold I caught")},
    "woodworking": {"stuff": ("the walnut table", "the dovetail joints", "the workshop dust", "the new chisels"),
                    "doing": ("planing oak boards", "sharpening chisels", "gluing up a tabletop"),
                    "world": ("in the garage workshop", "at the workbench"), "snag": ("the warped boards", "the splinters")},
    "running": {"stuff": ("the half marathon", "my training plan", "the new trail shoes", "the hill repeats"),
                "doing": ("doing long runs on Sundays", "working on my pacing", "stretching after runs"),
                "world": ("in the running club", "on the trails"), "snag": ("the sore calf", "the heat")},
    "baking": {"stuff": ("the sourdough starter", "the lemon tart", "the rye loaves", "the bake sale"),
               "doing": ("shaping loaves", "laminating croissant dough", "testing cardamom buns"),
               "world": ("in the kitchen at weekends", "in the baking group"), "snag": ("the flat loaves", "the oven's hot spot")},
    "photography": {"stuff": ("the street series", "the film camera", "the darkroom prints", "the photo walk"),
                    "doing": ("shooting at golden hour", "developing film", "editing the city series"),
                    "world": ("out with the camera", "in the photo club"), "snag": ("the grey light", "the scratched negatives")},
    "gardening": {"stuff": ("the raised beds", "the tomato seedlings", "the compost heap", "the herb spiral"),
                  "doing": ("pruning the roses", "planting garlic", "building a trellis"),
                  "world": ("at the allotment", "in the garden"), "snag": ("the slugs", "the dry spell")},
    "local history": {"stuff": ("the old town maps", "the parish records", "the history society talk", "the mill archive"),
                      "doing": ("transcribing old letters", "mapping the old tram lines", "interviewing long-time residents"),
                      "world": ("in the archive", "at the history society"), "snag": ("the faded ink", "the missing years")},
    "rock climbing": {"stuff": ("the bouldering problems", "the new harness", "the outdoor crag trip", "the finger training"),
                      "doing": ("working on overhangs", "practicing falls", "belaying beginners"),
                      "world": ("at the climbing gym", "on the wall"), "snag": ("the sore fingers", "the crowded gym")},
    "jazz piano": {"stuff": ("the chord voicings", "the open mic night", "the old upright piano", "the standards book"),
                   "doing": ("practicing scales", "learning to improvise", "transcribing solos"),
                   "world": ("at the jam session", "at the piano"), "snag": ("the out-of-tune keys", "my left hand")},
    "sailing": {"stuff": ("the dinghy course", "the club regatta", "the new sails", "the knots"),
                "doing": ("practicing tacks", "reading the tide tables", "rigging the boat"),
                "world": ("out on the lake", "at the sailing club"), "snag": ("the gusts", "the capsize drills")},
    "knitting": {"stuff": ("the cable sweater", "the sock yarn", "the knitting circle", "the baby blanket"),
                 "doing": ("casting on a new scarf", "fixing dropped stitches", "trying colorwork"),
                 "world": ("in the knitting circle", "on the sofa with needles"), "snag": ("the tangled yarn", "the wrong gauge")},
    "cycling": {"stuff": ("the gravel bike", "the charity ride", "the coast route", "the new saddle"),
                "doing": ("riding hill loops", "fixing punctures", "planning the coast ride"),
                "world": ("on the bike", "in the cycling club"), "snag": ("the headwinds", "the potholes")},
    "language learning": {"stuff": ("the Portuguese course", "the vocabulary app", "the conversation exchange", "the grammar book"),
                          "doing": ("practicing verb tenses", "watching films without subtitles", "writing a diary in Spanish"),
                          "world": ("in my language class", "at the conversation cafe"), "snag": ("the irregular verbs", "my accent")},
    "painting": {"stuff": ("the watercolor landscapes", "the still life class", "the new brushes", "the portrait commission"),
                 "doing": ("mixing greens", "painting skies", "sketching in the park"),
                 "world": ("at the easel", "in the art class"), "snag": ("the muddy colors", "the blank canvas")},
    "board games": {"stuff": ("the strategy game night", "the new expansion", "the game collection", "the tournament"),
                    "doing": ("learning the rules", "teaching new players", "designing my own game"),
                    "world": ("at game night", "at the board game cafe"), "snag": ("the long setup", "the missing pieces")},
    "volunteering": {"stuff": ("the food bank shifts", "the park cleanup", "the reading program", "the charity auction"),
                     "doing": ("sorting donations", "tutoring kids", "organizing volunteers"),
                     "world": ("at the food bank", "with the charity"), "snag": ("the short staffing", "the storage space")},
    "fishing": {"stuff": ("the fly rod", "the river trip", "the tackle box", "the fly patterns"),
                "doing": ("tying flies", "casting at dawn", "reading the river"),
                "world": ("on the riverbank", "out on the water"), "snag": ("the low water", "the tangled line")},
    "cooking": {"stuff": ("the curry experiments", "the dinner party", "the new cookbook", "the spice collection"),
                "doing": ("making fresh pasta", "learning knife skills", "slow-cooking stews"),
                "world": ("at home in the kitchen", "in my cooking class"), "snag": ("the burnt pans", "the grocery bill")},
    "hiking": {"stuff": ("the ridge trail", "the new boots", "the hut-to-hut trip", "the trail maps"),
               "doing": ("planning long walks", "climbing the local peaks", "packing light"),
               "world": ("in the hills", "with the walking group"), "snag": ("the blisters", "the fog")},
    "reading": {"stuff": ("the book club novel", "the history biography", "my to-read pile", "the poetry collection"),
                "doing": ("reading before bed", "rereading old favorites", "annotating the margins"),
                "world": ("in the book club", "at the library"), "snag": ("the slow middle chapters", "my short attention span")},
}
#: Each person's interests (drawn from their name).
PER_PERSON = 2

#: Opening a conversation about an interest.
OPEN: tuple[str, ...] = (
    "I spent the whole weekend {doing}. [My hands are sore|I lost track of time], but it was worth it.",
    "{Stuff} went better than I expected. [Small wins|I'm a little proud of myself].",
    "I've been {doing} again. It's the only time my head goes quiet.",
    "Guess what? I signed up for {stuff}. No backing out now.",
    "I think I'm finally getting the hang of {doing}. Took me long enough.",
    "There's a new group {world} now. I went once and I'm already hooked.",
    "I've been reading about {stuff} on my lunch breaks. There's so much I didn't know.",
    "Between {snag} and work, I haven't done much {world} lately. I miss it.",
)
#: Asking about it, and the answers that fit each question.
QA: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("How's {stuff} coming along? You were so excited about it.",
     ("Slowly. {Stuff} has a mind of its own, but I'm learning.", "Better every week. I'll show you some time.")),
    ("How did you get into {doing}, anyway?",
     ("A friend dragged me along years ago, and I never stopped.", "I saw a video once and thought, how hard can it be? Very, it turns out.")),
    ("{Snag_is} {snag} still [bothering you|a problem], or did you find a way around it?",
     ("It's a work in progress. {Snag} {snag_does}n't help, but I keep going.", "I found a way around it, mostly. Don't ask how.")),
    ("Do you go {world} every week, or just when you can?",
     ("Mostly every week. It's the one thing I protect in my calendar.", "When I can. Work keeps getting in the way.")),
    ("Would you ever teach {doing}? You seem to love it.",
     ("Maybe one day. I'm still a beginner in a lot of ways.", "I'd like that. Maybe a small class, to start with.")),
    ("What's the best part, would you say?",
     ("The people, honestly. Everyone {world} is so generous with what they know.",
      "The quiet, I think. When I'm {doing}, nothing else gets in.")),
    ("Can I come along some time? I've always been curious.",
     ("Of course. Bring comfortable shoes and modest expectations.", "Please do. It's more fun with company.")),
)
#: The questions alone.
ASK: tuple[str, ...] = tuple(q for q, _ in QA)
#: The listener's own experience.
RELATE: tuple[str, ...] = (
    "I tried something like that once and gave up after a month. You have more patience than me.",
    "That's how I feel about {odoing}. It's work, but the good kind.",
    "My [aunt|grandmother|old neighbor] was into that. She had a whole room for it.",
    "I love that you have something just for you. Everyone needs that.",
    "You make it sound so peaceful. Maybe I should try it.",
    "Every time you talk about {stuff}, I want to take up a hobby. Then I remember my schedule.",
    "{Odoing} does the same for me, most weeks. It's the only hour nobody can reach me.",
    "You've been at it for ages now. I'd love to see how far you've come.",
    "I still think about the [photos|pieces|stories] you showed me last time. You've got a real eye.",
    "My [neighbor|cousin|old roommate] just got into {doing} too. I should introduce you two.",
    "Honestly, I admire that you stick with it. I start things and drop them within a month.",
    "That sounds like the perfect antidote to a week like this one.",
    "I read an article about {doing} the other day and thought of you straight away.",
)
