"""Word pools of the natural renderer's small talk: the things people talk about.

Large pools keep any single content word rare across a generated history, as it is in real
talk. Each entry fills one placeholder of the topic texts (see
:mod:`vmb_gym.generator.talk_bank_topics`). No entry names a vehicle setting.
"""

from __future__ import annotations

THINGS: tuple[str, ...] = (
    "washing machine", "dishwasher", "boiler", "kitchen faucet", "garage door", "fridge", "oven door",
    "bathroom extractor", "doorbell", "toaster", "vacuum cleaner", "bedroom radiator", "coffee maker", "microwave",
    "shower head", "back gate", "garden hose", "printer", "smoke alarm", "dryer", "blender", "kettle",
    "lawn mower", "ceiling paint", "porch step", "kitchen drawer", "mailbox", "front door lock", "closet door",
    "bookshelf", "water heater", "sink drain", "bathroom tiles", "fence panel", "patio umbrella", "ironing board",
    "freezer", "rice cooker", "spare room door", "attic hatch", "gutter", "hallway carpet",
)
FOODS: tuple[str, ...] = (
    "ramen", "tacos", "lasagna", "curry", "dumplings", "paella", "pho", "falafel", "risotto", "pancakes",
    "banana bread", "shakshuka", "chili", "gnocchi", "fish pie", "bibimbap", "enchiladas", "minestrone",
    "sourdough", "lentil soup", "pad thai", "moussaka", "empanadas", "roast chicken", "tagine", "pierogi",
    "carrot cake", "jambalaya", "gumbo", "focaccia", "biryani", "okonomiyaki", "stuffed peppers", "gazpacho",
    "crepes", "pulled pork", "quiche", "mac and cheese", "spring rolls", "apple crumble", "tamales", "udon",
    "corn chowder", "samosas", "meatballs", "baklava", "cornbread", "poke bowls",
)
PLACES: tuple[str, ...] = (
    "the botanical garden", "the old fort", "the science museum", "the beach", "the market hall",
    "the climbing gym", "the lake", "the art museum", "the aquarium", "the farmers market", "the zoo",
    "the waterfront", "the history museum", "the planetarium", "the community center", "the old mill",
    "the nature reserve", "the sculpture park", "the flea market", "the rose garden", "the county fair",
    "the lighthouse", "the observatory", "the ice rink", "the public pool", "the children's museum",
    "the arboretum", "the bowling alley", "the state park", "the night market", "the pier",
)
HOBBIES: tuple[str, ...] = (
    "bouldering", "sourdough baking", "birdwatching", "chess", "woodworking", "salsa dancing",
    "watercolor painting", "cycling", "gardening", "photography", "pottery", "knitting", "rock climbing",
    "calligraphy", "trail running", "kayaking", "origami", "beekeeping", "embroidery", "jigsaw puzzles",
    "fly fishing", "stand-up paddling", "archery", "model trains", "bread making", "quilting", "tai chi",
    "mosaic tiles", "orienteering", "stargazing", "fermenting vegetables", "bonsai", "sketching", "tennis",
    "volleyball", "book binding", "candle making", "geocaching", "ice skating", "improv theater",
)
EVENTS: tuple[str, ...] = (
    "craft fair", "jazz night", "food market", "book swap", "charity run", "open-air film", "chili cook-off",
    "street festival", "plant sale", "trivia night", "lantern parade", "science fair", "antique fair",
    "poetry reading", "choir concert", "pumpkin festival", "comedy night", "vintage car show", "kite festival",
)
SHOWS: tuple[str, ...] = (
    "that new detective series", "the cooking competition", "the space documentary", "the period drama",
    "the mystery series set on the island", "that comedy about the hotel", "the nature series",
    "the courtroom drama", "the baking show", "that documentary about deep-sea creatures", "the spy thriller",
    "the show about the lighthouse keeper", "the history podcast", "the true crime podcast",
    "that sitcom about the newsroom", "the architecture documentary", "the anime your niece recommended",
)
CITIES: tuple[str, ...] = (
    "Lisbon", "Montreal", "Kyoto", "Edinburgh", "Vienna", "Melbourne", "Seville", "Copenhagen", "Oaxaca",
    "Valparaiso", "Tallinn", "Porto", "Santa Fe", "Savannah", "Quebec City", "Krakow", "Hanoi", "Bergen",
    "Asheville", "Marrakesh", "Ljubljana", "Portland", "Cape Town", "Buenos Aires", "Reykjavik", "Seoul",
)
#: Subjects people read and wonder about (the interests topic).
SUBJECTS: tuple[str, ...] = (
    "the history of bridges", "sleep science", "fermentation", "urban beekeeping", "ancient navigation",
    "how cities plan their parks", "the psychology of habits", "coral reefs", "medieval architecture",
    "soil microbes", "the early days of aviation", "migratory birds", "typography", "volcanoes",
    "the origins of board games", "old maps", "how memory works", "bird songs", "the history of coffee",
    "tidal energy", "glass blowing", "Roman roads", "octopus intelligence", "the science of baking",
    "public libraries", "Arctic exploration", "jazz history", "the economics of fast fashion", "mushrooms",
    "how languages change", "dinosaur feathers", "the first telescopes", "desert plants", "honeybee dances",
    "lighthouses", "the history of vaccines", "urban wildlife", "tiny houses", "the silk road", "meteorites",
    "bread yeast", "ocean currents", "ancient pottery", "how glaciers move", "community gardens",
    "the history of maps", "paper making", "wolves", "sign language", "the stock market crash of 1929",
)
#: Small things that go wrong at work, anywhere.
WORK_SNAGS: tuple[str, ...] = (
    "the printer jammed again", "the shared drive went down", "two meetings got booked at once",
    "the budget sheet had the wrong numbers", "my login stopped working", "the delivery came a week late",
    "someone deleted the schedule", "the projector refused to connect", "the client moved the call twice",
    "the new software logged everyone out", "the coffee machine broke", "nobody could find the signed forms",
    "the heating in the office gave up", "the report template changed overnight", "the lift was out all day",
)
#: People around someone's week.
ROLES: tuple[str, ...] = (
    "my coworker", "our landlord", "the new intern", "my old roommate", "our neighbor across the street",
    "my manager", "a client", "the plumber", "my dentist", "the woman from the bakery", "my study partner",
    "our team lead", "my running buddy", "the kids' coach", "an old teacher of mine", "my book club friend",
)
FEELINGS: tuple[str, ...] = (
    "relieved", "a bit nervous", "excited", "exhausted", "proud", "overwhelmed", "hopeful", "restless",
    "surprisingly calm", "a little sad", "impatient", "grateful", "curious", "drained", "optimistic",
)
WHEN: tuple[str, ...] = (
    "this morning", "last night", "yesterday", "over the weekend", "on my lunch break", "earlier today",
    "on the way home", "before work", "last week", "after dinner",
)
#: Words of the small-talk texts said another way now and then (same part of speech, same sense).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "really": ("truly", "genuinely"), "honestly": ("frankly", "to be honest"),
    "actually": ("in fact", "as it happens"), "probably": ("likely", "most likely"),
    "finally": ("at last", "eventually"),
    "nice": ("lovely", "pleasant", "sweet"), "hard": ("tough", "difficult", "tricky"),
    "big": ("huge", "major", "serious"), "busy": ("hectic", "packed", "full"),
    "strange": ("odd", "weird", "curious"), "a lot": ("a ton", "a great deal"), "amazing": ("incredible", "remarkable"),
    "exciting": ("thrilling", "promising"), "worried": ("anxious", "uneasy"), "happy": ("glad", "pleased", "delighted"),
    "important": ("crucial", "essential", "key"), "simple": ("easy", "straightforward"),
    "quickly": ("fast", "in no time"), "usually": ("normally", "typically", "most of the time"),
    "lately": ("recently", "these days"), "stressful": ("nerve-racking", "intense"),
    "exhausting": ("draining", "tiring"), "weird": ("bizarre", "odd"),
    "idea": ("thought", "plan"), "problem": ("issue", "snag"),
    "excited": ("thrilled", "eager"), "nervous": ("jittery", "on edge"),
    "boring": ("dull", "tedious"), "awful": ("dreadful", "terrible"), "ages": ("forever", "a long time"),
    "figure out": ("work out", "sort out"), "plenty": ("lots",),
}
