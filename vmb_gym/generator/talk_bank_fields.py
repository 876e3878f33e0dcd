"""What each occupation works on, for the natural renderer's shop talk (original text).

:data:`FIELDS` maps an occupation of :data:`vmb_gym.generator.banks.OCCUPATIONS` to the
pieces :mod:`vmb_gym.generator.talk_ideas` composes a conversation about work from:

* ``stuff``: things of the job, as noun phrases ("the discharge notes");
* ``doing``: what someone in the job spends a day on, as gerund phrases;
* ``world``: the job as a place or a field ("on the ward", "in nursing");
* ``snag``: what goes wrong there, as noun phrases.

Each piece is short and ordinary, so any one of them is rare in a history while the talk
around it stays on the speaker's job.
"""

from __future__ import annotations

FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "nurse": {
        "stuff": ("the discharge notes", "the medication rounds", "the new charting software", "the night handovers",
                  "the infection audit", "the staffing plan", "the wound care training", "the patient surveys"),
        "doing": ("covering two bays at once", "training the student nurses", "chasing lab results",
                  "updating care plans", "calming worried families", "double-checking doses"),
        "world": ("on the ward", "in nursing", "in the hospital"),
        "snag": ("the staff shortage", "the paperwork", "the broken pager system", "the bed shortage"),
    },
    "civil engineer": {
        "stuff": ("the soil samples", "the bridge drawings", "the drainage design", "the load calculations",
                  "the site inspections", "the concrete schedule", "the traffic diversion plan", "the cost estimate"),
        "doing": ("checking rebar on site", "redoing the load models", "arguing with contractors",
                  "walking the site in the rain", "reviewing the survey data", "writing method statements"),
        "world": ("on site", "in engineering", "in infrastructure work"),
        "snag": ("the permit delays", "the groundwater", "the supply prices", "the weather"),
    },
    "high school teacher": {
        "stuff": ("the lesson plans", "the mock exams", "the science fair", "the reading program",
                  "the report cards", "the new curriculum", "the debate club", "the lab safety rules"),
        "doing": ("grading lab reports", "rewriting the unit on ecosystems", "running the debate club",
                  "planning the field trip", "meeting with parents", "covering for a colleague"),
        "world": ("in the classroom", "in teaching", "at school"),
        "snag": ("the class sizes", "the budget cuts", "the exam calendar", "the phones in class"),
    },
    "software developer": {
        "stuff": ("the deployment pipeline", "the search feature", "the database migration", "the test suite",
                  "the mobile app", "the monitoring dashboards", "the API redesign", "the legacy code"),
        "doing": ("debugging a memory leak", "reviewing pull requests", "writing integration tests",
                  "pairing with the new hire", "refactoring old modules", "tuning slow queries"),
        "world": ("in software", "in tech", "on our team"),
        "snag": ("the flaky tests", "the technical debt", "the shifting requirements", "the outage last week"),
    },
    "pharmacist": {
        "stuff": ("the prescription backlog", "the vaccine clinic", "the stock system", "the drug interaction checks",
                  "the new dispensing robot", "the patient consultations", "the controlled drug audit",
                  "the delivery service"),
        "doing": ("checking interactions", "counting controlled stock", "calling doctors about doses",
                  "explaining side effects", "training the new technician", "sorting out insurance claims"),
        "world": ("at the pharmacy", "in pharmacy", "behind the counter"),
        "snag": ("the supply shortages", "the insurance rules", "the queue at lunchtime", "the ordering system"),
    },
    "architect": {
        "stuff": ("the floor plans", "the facade study", "the planning application", "the scale model",
                  "the daylight analysis", "the client brief", "the material samples", "the renovation drawings"),
        "doing": ("sketching options for the atrium", "redrawing the stair", "meeting the planning officer",
                  "testing materials for the facade", "building a foam model", "walking the site with the client"),
        "world": ("in architecture", "at the studio", "in design work"),
        "snag": ("the budget changes", "the planning rules", "the heritage review", "the client's second thoughts"),
    },
    "chef": {
        "stuff": ("the tasting menu", "the spring specials", "the prep lists", "the supplier invoices",
                  "the fermentation shelf", "the kitchen rota", "the dessert menu", "the catering order"),
        "doing": ("testing new sauces", "breaking down whole fish", "training the new line cook",
                  "costing the menu", "pickling vegetables", "rearranging the walk-in fridge"),
        "world": ("in the kitchen", "in restaurants", "on the line"),
        "snag": ("the produce prices", "the broken oven", "the staff turnover", "the Friday rush"),
    },
    "accountant": {
        "stuff": ("the quarterly accounts", "the audit files", "the tax returns", "the cash flow forecast",
                  "the expense policy", "the payroll review", "the budget model", "the client reports"),
        "doing": ("reconciling accounts", "chasing missing receipts", "building the forecast",
                  "checking depreciation schedules", "preparing audit notes", "answering client questions"),
        "world": ("in accounting", "at the firm", "in finance"),
        "snag": ("the missing invoices", "the new tax rules", "the deadline season", "the old spreadsheets"),
    },
    "veterinarian": {
        "stuff": ("the surgery schedule", "the vaccination records", "the new ultrasound", "the farm visits",
                  "the dental cleanings", "the clinic's rescue program", "the lab panels", "the after-hours calls"),
        "doing": ("stitching up a spaniel", "reading x-rays", "calming anxious owners", "doing farm calls",
                  "checking on post-op patients", "training the new vet nurse"),
        "world": ("at the clinic", "in veterinary work", "in animal care"),
        "snag": ("the emergency calls", "the drug prices", "the waiting list", "the owners who skip follow-ups"),
    },
    "journalist": {
        "stuff": ("the council investigation", "the interview notes", "the feature draft", "the data story",
                  "the election coverage", "the podcast episode", "the photo desk", "the fact-checking queue"),
        "doing": ("transcribing interviews", "chasing sources", "rewriting the lede", "digging through records",
                  "pitching stories to my editor", "fact-checking numbers"),
        "world": ("in journalism", "in the newsroom", "at the paper"),
        "snag": ("the deadlines", "the budget cuts", "the sources who go quiet", "the comment section"),
    },
    "electrician": {
        "stuff": ("the rewiring job", "the solar install", "the fuse boards", "the inspection report",
                  "the lighting plan", "the heat pump wiring", "the van stock", "the apprentice's training"),
        "doing": ("pulling cable through old walls", "testing circuits", "fitting solar panels",
                  "tracing a fault", "quoting new jobs", "teaching the apprentice"),
        "world": ("in the trade", "on the job", "in electrical work"),
        "snag": ("the old wiring", "the parts delays", "the customers who move the goalposts", "the inspections"),
    },
    "physiotherapist": {
        "stuff": ("the rehab programs", "the knee patients", "the balance classes", "the treatment notes",
                  "the running assessments", "the new gym equipment", "the back care workshop", "the exercise sheets"),
        "doing": ("running the balance class", "assessing a runner's gait", "taping ankles",
                  "writing home exercise plans", "working with stroke patients", "reviewing scans"),
        "world": ("in physio", "at the clinic", "in rehab"),
        "snag": ("the patients who skip exercises", "the booking system", "the waiting list", "the short sessions"),
    },
    "graphic designer": {
        "stuff": ("the brand guidelines", "the poster series", "the packaging mockups", "the typeface choices",
                  "the color palette", "the website layouts", "the pitch deck", "the illustration set"),
        "doing": ("kerning headlines", "building mockups", "presenting concepts", "redrawing the logo",
                  "testing color palettes", "laying out the annual report"),
        "world": ("in design", "at the agency", "in branding work"),
        "snag": ("the client feedback", "the tight deadlines", "the endless revisions", "the print costs"),
    },
    "lab technician": {
        "stuff": ("the sample logs", "the calibration records", "the microscope bookings", "the reagent stock",
                  "the cell cultures", "the safety audit", "the data entry", "the freezer inventory"),
        "doing": ("running sample batches", "calibrating instruments", "prepping reagents",
                  "logging results", "cleaning the fume hoods", "training students on the equipment"),
        "world": ("in the lab", "in research", "at the institute"),
        "snag": ("the contaminated batch", "the equipment downtime", "the supply orders", "the freezer alarm"),
    },
    "sales manager": {
        "stuff": ("the quarterly targets", "the client pipeline", "the trade show stand", "the pricing review",
                  "the sales training", "the new catalogue", "the territory plan", "the customer feedback"),
        "doing": ("visiting big accounts", "coaching the new reps", "negotiating contracts",
                  "building the forecast", "preparing the trade show", "reviewing discounts"),
        "world": ("in sales", "on the road", "at the company"),
        "snag": ("the price increases", "the slow quarter", "the competitors", "the shipping delays"),
    },
    "librarian": {
        "stuff": ("the local history archive", "the reading challenge", "the digital catalogue", "the book club",
                  "the homework help sessions", "the donated collection", "the author talks", "the makerspace"),
        "doing": ("digitizing old maps", "weeding the shelves", "running story time", "helping people with forms",
                  "cataloguing donations", "planning the summer program"),
        "world": ("at the library", "in libraries", "in public service"),
        "snag": ("the funding cuts", "the overdue fines debate", "the leaky roof", "the printer"),
    },
    "paramedic": {
        "stuff": ("the night shifts", "the response times", "the new defibrillators", "the training scenarios",
                  "the incident reports", "the vehicle checks", "the mental health calls", "the crew rota"),
        "doing": ("restocking the ambulance", "running trauma drills", "writing call reports",
                  "mentoring new crew", "covering extra shifts", "handing over at the hospital"),
        "world": ("on the road", "in emergency care", "on the ambulance"),
        "snag": ("the hospital queues", "the long shifts", "the call volume", "the old radios"),
    },
    "translator": {
        "stuff": ("the contract translations", "the glossary", "the court documents", "the subtitles project",
                  "the style guide", "the terminology database", "the client's manuals", "the literary sample"),
        "doing": ("checking legal terms", "building a glossary", "proofreading subtitles",
                  "translating a long contract", "arguing about commas", "researching idioms"),
        "world": ("in translation", "in my line of work", "in languages"),
        "snag": ("the rush deadlines", "the machine translation drafts", "the vague source texts", "the rates"),
    },
    "dentist": {
        "stuff": ("the patient list", "the new scanner", "the hygiene schedule", "the orthodontic cases",
                  "the sterilization audit", "the school checkup program", "the crown fittings", "the x-ray files"),
        "doing": ("fitting crowns", "calming nervous patients", "reading x-rays", "planning implants",
                  "training the new assistant", "doing school checkups"),
        "world": ("at the practice", "in dentistry", "in the chair"),
        "snag": ("the cancellations", "the equipment costs", "the insurance forms", "the lab delays"),
    },
    "photographer": {
        "stuff": ("the wedding edits", "the portfolio", "the exhibition prints", "the product shoot",
                  "the lighting kit", "the client galleries", "the archive backups", "the portrait series"),
        "doing": ("editing a wedding", "scouting locations", "testing a new lens", "printing proofs",
                  "retouching portraits", "backing up the archive"),
        "world": ("in photography", "behind the camera", "in the studio"),
        "snag": ("the weather", "the editing backlog", "the clients who want everything yesterday", "the storage costs"),
    },
    "urban planner": {
        "stuff": ("the zoning maps", "the bike lane proposal", "the housing survey", "the public consultation",
                  "the transit study", "the green space plan", "the parking review", "the flood risk maps"),
        "doing": ("mapping bus routes", "running public workshops", "reading traffic counts",
                  "writing the housing report", "meeting residents' groups", "modeling growth scenarios"),
        "world": ("in planning", "at the city office", "in urban policy"),
        "snag": ("the politics", "the budget", "the objections", "the outdated data"),
    },
    "mechanic": {
        "stuff": ("the diagnostic tools", "the brake jobs", "the parts orders", "the electric car training",
                  "the inspection bay", "the old trucks", "the service schedule", "the customer estimates"),
        "doing": ("tracing an electrical fault", "rebuilding a gearbox", "changing timing belts",
                  "reading fault codes", "road-testing repairs", "quoting jobs"),
        "world": ("at the garage", "in the workshop", "in the trade"),
        "snag": ("the parts shortages", "the new software", "the rusted bolts", "the warranty claims"),
    },
    "research scientist": {
        "stuff": ("the grant proposal", "the field samples", "the simulation runs", "the lab meeting",
                  "the data analysis", "the conference poster", "the paper revisions", "the new microscope"),
        "doing": ("cleaning the data", "writing the methods section", "running simulations",
                  "supervising students", "reviewing papers", "planning fieldwork"),
        "world": ("in research", "in the lab", "in academia"),
        "snag": ("the funding cycle", "the reviewers", "the noisy data", "the equipment budget"),
    },
    "social worker": {
        "stuff": ("the case files", "the family visits", "the support plans", "the court reports",
                  "the youth program", "the referrals", "the team supervision", "the housing applications"),
        "doing": ("visiting families", "writing court reports", "coordinating with schools",
                  "finding emergency housing", "running a parenting group", "updating case notes"),
        "world": ("in social work", "in the office", "in family services"),
        "snag": ("the caseload", "the waiting lists", "the paperwork", "the funding gaps"),
    },
}
#: Used for an occupation not listed in :data:`FIELDS`.
DEFAULT_FIELD = "research scientist"
