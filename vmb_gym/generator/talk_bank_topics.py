"""Everyday topics of the natural renderer's small talk (original text).

Each topic holds the parts a conversation about it is composed from:

* ``open``: the news someone starts with;
* ``more``: details the same person adds when asked;
* ``ask``: questions the other person asks about it;
* ``relate``: the other person's own, similar experience;
* ``tip``: a suggestion from the other person;
* ``plan``: what the first person will do next.

Placeholders (filled by :mod:`vmb_gym.generator.talk`): ``{work}`` and ``{workplace}`` of the
speaker, ``{relative}`` one of their relatives' relation words, ``{district}``, ``{weekday}``,
``{food}``, ``{place}``, ``{hobby}``, ``{event}``, ``{weather}``, ``{grocery}``, ``{thing}`` (a
household object), ``{show}`` (a series), ``{city}``. Apostrophes are ASCII here; the renderer
sets most of them curly.
"""

from __future__ import annotations

Topic = dict[str, tuple[str, ...]]

TOPICS: dict[str, Topic] = {
    "work": {
        "open": (
            "I spent most of the morning on {work}, and I'm nowhere near done.",
            "So {work} finally got the green light at {workplace}.",
            "They moved the deadline for {work} up by a week. Nobody asked me, of course.",
            "I think I finally cracked {work}. It only took three tries and a lot of coffee.",
            "My manager pulled me aside about {work} today.",
            "We had a long meeting about {work} and I still don't know who owns what.",
            "I volunteered to lead {work} at {workplace}, which may have been a mistake.",
            "There's a new person joining us to help with {work} next {weekday}.",
        ),
        "more": (
            "Half of it is waiting on other people, and the other half is paperwork nobody warned me about.",
            "The tricky part is that every change touches three other things.",
            "I keep finding small problems that turn into big ones once I look closer.",
            "It's good work, [honestly|really|truly], it's just a lot of it at once.",
            "They want a first version by {weekday}, which is ambitious.",
            "The good news is the team is solid. The bad news is the schedule isn't.",
            "I wrote up a plan last night, so at least I know where to start.",
            "Most days I feel on top of it, and then one email undoes the whole thing.",
        ),
        "ask": (
            "Is that the thing you were worried about last month?",
            "Do you get any say in the timeline, or is it fixed?",
            "Who else is working on {work} with you, or is it mostly on your plate?",
            "How is the rest of your team handling {work}?",
            "Are you excited about {work}, or mostly tired of it by now?",
            "What's the hardest part so far?",
            "Will {work} mean longer hours for you, at least for a while?",
        ),
        "relate": (
            "I had something similar last year. The first month was the worst of it.",
            "That sounds like my week too, just with more spreadsheets.",
            "At my place we'd call that a classic Friday surprise.",
            "I know that feeling. Every project I touch grows a second head.",
            "I've been there. The trick for me was saying no to one small thing.",
        ),
        "tip": (
            "Maybe block out your mornings for it and keep meetings to the afternoon?",
            "You could ask for one extra person, even part-time. It never hurts to ask.",
            "Write down what you already finished. It helps when it feels endless.",
            "I'd push back on the deadline, politely. They can only say no.",
            "Take the weekend off from it, though. You'll think better on Monday.",
        ),
        "plan": (
            "[I'll|I plan to|I'm hoping to|I want to] sketch out the next steps tonight and send them round tomorrow.",
            "I'll talk to my manager on {weekday} and see what can move.",
            "For now I'm just taking it one piece at a time.",
            "I'll probably stay a bit late on {weekday} to get ahead of it.",
            "[I'll|I plan to|I'm hoping to|I want to] ask for a proper review before anything goes out.",
        ),
    },
    "family": {
        "open": (
            "My {relative} {rname} called last night. We ended up talking for almost two hours.",
            "My {relative} is thinking about moving closer to us.",
            "I finally booked the trip to see my {relative} in {city}.",
            "My {relative} {rname} just started a new job, and {rhe} sounds really happy about it.",
            "We're throwing a small birthday dinner for my {relative} next {weekday}.",
            "My {relative} has decided to take up {hobby}, of all things.",
        ),
        "more": (
            "{Rhe}'s been lonely since the move, I think, so the long calls help {rhim}.",
            "It's a big change for {rhim}, but {rhe} sounds sure about it.",
            "Nothing fancy, just a few people, a cake and way too much food.",
            "{Rhe} wants me to come along to the first session, which is sweet of {rhim}.",
            "It's been almost a year since I saw {rhim} in person.",
            "{Rhe} keeps sending me photos, so I get the daily updates whether I want them or not.",
        ),
        "ask": (
            "How is {rhe} doing, overall?",
            "Are you going to bring anything?",
            "When did you last see {rhim}?",
            "Does {rhe} need any help with it?",
            "Is the rest of the family coming too?",
            "Did that come out of nowhere, or was {rhe} planning it?",
        ),
        "relate": (
            "My {relative} did something like that a few years ago. Best decision they made.",
            "I should call mine more often, [honestly|really|truly]. You're making me feel guilty.",
            "Family dinners at our place always end with someone arguing about board games.",
            "That reminds me, I still owe my {relative} a visit.",
        ),
        "tip": (
            "You could send {rhim} a little care package before the visit.",
            "Maybe plan one quiet day in there. Those trips get tiring.",
            "Bring photos. Older relatives love going through photos.",
            "Ask {rhim} to teach you something. People love that.",
        ),
        "plan": (
            "[I'll|I plan to|I'm hoping to|I want to] call {rhim} back on {weekday} and sort out the details.",
            "I'll pick up a present on the way home this week.",
            "I think I'll take a couple of days off around it.",
            "We'll see. I'll ask {rname} what {rhe}'d actually like.",
        ),
    },
    "food": {
        "open": (
            "I tried making {food} from scratch last night.",
            "That little place near {district} has the best {food} I've had in ages.",
            "We're completely out of {grocery} again. I don't know how it keeps happening.",
            "I've been meal prepping on Sundays, and it's actually working.",
            "I'm thinking about hosting a {food} night for a few friends.",
            "I found an old recipe card of my {relative}'s in a cookbook.",
        ),
        "more": (
            "It took twice as long as the recipe said, but it came out better than I expected.",
            "The trick seems to be patience. I always want to rush the last step.",
            "They only open four days a week, so you have to plan for it.",
            "It saves me so much time on weeknights, and I eat less takeout.",
            "Half the instructions are in shorthand, so I'm guessing a bit.",
            "I burned the first batch, so let's call the second batch the real one.",
        ),
        "ask": (
            "Did you follow a recipe for the {food}, or just wing it?",
            "Is that place expensive, or is it reasonable?",
            "What did you end up making?",
            "Do you need me to pick anything up?",
            "Would you make {food} again, maybe for a dinner party?",
            "How spicy are we talking?",
        ),
        "relate": (
            "I tried something like that once and set off the smoke alarm.",
            "I went there with a friend last spring. The portions are huge.",
            "Soup is my version of that. A big pot on Sunday lasts me till Wednesday.",
            "My {relative} makes an amazing version of that, but won't share the recipe.",
        ),
        "tip": (
            "Add a squeeze of lemon right at the end. It wakes everything up.",
            "Go early if you can. The line gets silly after seven.",
            "Freeze half of it. Future you will be grateful.",
            "Try it with {grocery}. Sounds odd, but it works.",
        ),
        "plan": (
            "I'll have another go on {weekday}, with less salt this time.",
            "[I'll|I plan to|I'm hoping to|I want to] write the recipe down properly before I forget what I did.",
            "I'll pick some up on the way home.",
            "Next time I'm making a double batch.",
        ),
    },
    "home": {
        "open": (
            "The {thing} broke again this morning.",
            "We finally cleared out the garage. It took the whole weekend.",
            "I'm thinking of repainting the hallway. It's looked tired for years.",
            "The landlord says someone's coming to look at the {thing} on {weekday}.",
            "I rearranged the living room and now I can't find anything.",
            "Our neighbors are renovating, so it's drilling from eight every morning.",
        ),
        "more": (
            "It's the third time this year, so I think it's time to replace it.",
            "We found boxes we hadn't opened since the move. One was just cables.",
            "I've got a few color samples taped to the wall, and they all look the same to me.",
            "They gave me a four-hour window, which means I'm stuck at home all morning.",
            "It looks better, [honestly|really|truly]. I just keep walking into the couch.",
            "They say it'll be another month. I'm not sure I believe them.",
        ),
        "ask": (
            "Is the {thing} still under warranty, do you think?",
            "Did you keep anything, or was it all donations?",
            "What colors are you thinking about?",
            "Do you want me to be there when they come?",
            "How long have they been at it?",
            "Can you even sleep in with that going on?",
        ),
        "relate": (
            "Ours did the same thing last winter. The repair cost nearly as much as a new one.",
            "I did our attic last year and found a box of old letters. Lost a whole afternoon.",
            "We painted the kitchen a sort of gray-green and I still love it.",
            "Our building had six weeks of that. Earplugs saved me.",
        ),
        "tip": (
            "Check the manual for a reset first. It fixed ours once.",
            "Paint a big square on the wall and look at it at night too. Light changes everything.",
            "Ask them to send a photo of the part before they come, so they bring the right one.",
            "Take pictures before you move things. Sounds silly, but it helps.",
        ),
        "plan": (
            "I'll look at a few options [this weekend|on Saturday|in the next few days|soon] and decide.",
            "[I'll|I plan to|I'm hoping to|I want to] call them back and push for an earlier slot.",
            "I'll pick up a sample pot on {weekday}.",
            "We'll give it another week and see.",
        ),
    },
    "health": {
        "open": (
            "I finally went to the physio about my knee.",
            "I've been sleeping so badly this week.",
            "I started walking to the station instead of taking the bus.",
            "The doctor wants me to cut back on coffee. I'm not thrilled.",
            "I joined a [beginners'|Tuesday evening] yoga class at the community center.",
            "My allergies are terrible this spring. Everything is blooming at once.",
        ),
        "more": (
            "Nothing serious, apparently. Just a lot of sitting and not enough stretching.",
            "I wake up around three and then my brain just starts listing things.",
            "It's only twenty minutes, but I feel better by the time I get to work.",
            "One cup a day, she said. I'm currently negotiating with myself.",
            "The first class was harder than I expected. I'm sore in places I didn't know about.",
            "I've gone through a box of tissues in two days.",
        ),
        "ask": (
            "Did they give you exercises to do at home?",
            "Have you tried cutting screens before bed?",
            "Will you keep up the walking when it gets colder?",
            "How are you holding up without your morning coffee?",
            "Is the teacher any good?",
            "Do the tablets help at all?",
        ),
        "relate": (
            "I had the same thing after my last job. It took a month to feel normal.",
            "I switched to tea in the afternoons and it made a real difference.",
            "I tried that class last year. Stick with it, it gets easier after week three.",
            "I'm the same every April. My eyes just give up.",
        ),
        "tip": (
            "Try a walk after dinner. It helps me wind down.",
            "Set a reminder to stand up every hour. It's annoying, but it works.",
            "Keep the windows shut in the mornings, that's when the pollen is worst.",
            "Don't push it too hard at the start. Slow is fine.",
        ),
        "plan": (
            "[I'll|I plan to|I'm hoping to|I want to] give it two weeks and see if it helps.",
            "I'll book a follow-up for next {weekday}.",
            "I'll try going to bed earlier, at least on work nights.",
            "[I'll|I plan to|I'm hoping to|I want to] stick with the class until the end of the month.",
        ),
    },
    "hobby": {
        "open": (
            "I've been getting into {hobby} lately.",
            "Our {hobby} group is doing a small show at {place} next month.",
            "I bought new gear for {hobby}, probably more than I needed.",
            "I finished my first real project in {hobby} [this weekend|on Saturday|in the next few days|soon].",
            "I found a {hobby} club that meets on {weekday} evenings.",
        ),
        "more": (
            "I'm not good at it yet, but it's the one time my phone stays in my pocket.",
            "Everyone there has been doing it for years, so I mostly watch and ask questions.",
            "The store assistant was very convincing. My bank account is less impressed.",
            "It's a bit crooked, but I'm weirdly proud of it.",
            "It's a nice mix of people, from students to retirees.",
        ),
        "ask": (
            "How did you get into that?",
            "Is {hobby} hard to pick up as an adult?",
            "Can I come and watch one time?",
            "Are you going to show something?",
            "Is {hobby} expensive to get started with?",
        ),
        "relate": (
            "I tried that in college and gave up after a month. You're braver than me.",
            "My {relative} has done that for years. They still talk about their first attempt.",
            "I've been meaning to pick up something like that. Work keeps eating my evenings.",
            "I spent a whole winter on {hobby} once. Loved it, then life got busy.",
        ),
        "tip": (
            "Keep a little notebook of what you learn. It's nice to look back at.",
            "Second-hand gear is fine to start with. You'll know what you want later.",
            "Find one person there who's a bit ahead of you and ask them everything.",
            "Take photos of your progress. You'll be surprised in a few months.",
        ),
        "plan": (
            "I'm going back on {weekday}, assuming work lets me.",
            "I want to try something bigger next, maybe over the vacation.",
            "I'll bring you along one of these weeks.",
            "[I'll|I plan to|I'm hoping to|I want to] practice a bit every evening, even if it's only fifteen minutes.",
        ),
    },
    "weekend": {
        "open": (
            "Any plans for the weekend?",
            "I was thinking we could go to {place} on Saturday.",
            "There's a {event} at {place} on Sunday. Want to go?",
            "The forecast for the weekend looks {weather}, so maybe not the beach.",
            "I'd honestly love a weekend with no plans at all.",
            "A couple of friends invited us to {district} on Saturday.",
        ),
        "more": (
            "Nothing fixed yet. I'm open to ideas, as long as it doesn't involve a long drive.",
            "It opens at ten, and apparently it gets busy after lunch.",
            "They do it every spring, and last year there was live music too.",
            "We could do something indoors instead and save the trip for another time.",
            "Sleep in, cook something nice, maybe a walk. That's my whole plan.",
            "They found a place for brunch and want to walk around afterwards.",
        ),
        "ask": (
            "What time were you thinking?",
            "Do we need tickets for that?",
            "Should we invite anyone else?",
            "Is {place} even worth it if it rains?",
            "Do you want to make a day of it?",
        ),
        "relate": (
            "I went last year with my {relative}. We stayed much longer than we planned.",
            "I've wanted to check that out for ages and never got round to it.",
            "Last weekend was so packed that I needed Monday to recover.",
            "Brunch in {district} is always a good idea, in my experience.",
        ),
        "tip": (
            "Let's leave early and get lunch on the way back.",
            "Maybe pack something warm, just in case.",
            "We could book a table somewhere, so we're not wandering around hungry.",
            "Let's keep Sunday free, though. I need one slow day.",
        ),
        "plan": (
            "I'll check the times and let you know tonight.",
            "I'll text them and see what works.",
            "Let's decide on Friday once we see the weather.",
            "I'll look for tickets after dinner.",
        ),
    },
    "shows": {
        "open": (
            "Have you started watching {show} yet?",
            "I stayed up way too late finishing {show}.",
            "I'm reading a book my {relative} recommended, and I can't put it down.",
            "I finally watched that documentary everyone keeps mentioning.",
            "The new season of {show} is out on {weekday}.",
        ),
        "more": (
            "The first episode is slow, but it picks up after that.",
            "The ending was not what I expected at all. I'm still thinking about it.",
            "It's about a family running a small hotel, which sounds boring, but it isn't.",
            "It made me want to read everything about the subject, which is dangerous.",
            "I've been waiting almost two years for it.",
        ),
        "ask": (
            "Is {show} the kind of thing I'd like, do you think?",
            "No spoilers, but was it worth it?",
            "Who's in {show}? Anyone I'd know?",
            "How many episodes are there?",
            "Are you going to watch it as it comes out or wait for the whole season?",
        ),
        "relate": (
            "I started it and gave up after two episodes. Maybe I should try again.",
            "I read something similar last year and lent it to three people.",
            "I did the same thing with a crime series last month. No regrets.",
            "My {relative} keeps telling me to watch it. Maybe this is a sign.",
        ),
        "tip": (
            "Give it until episode three before you decide.",
            "Watch it with the subtitles on. The dialogue is fast.",
            "Don't read anything about it online until you're done.",
            "Save it for a rainy weekend.",
        ),
        "plan": (
            "I'll lend you my copy when I'm done.",
            "I'm saving the last two episodes for the weekend.",
            "Let's watch the next one together.",
            "[I'll|I plan to|I'm hoping to|I want to] look for the author's other books.",
        ),
    },
    "travel": {
        "open": (
            "I'm thinking about a trip to {city} in the autumn.",
            "My passport expires in two months, and I only just noticed.",
            "We found cheap flights to {city}, but the times are awful.",
            "I'm still recovering from that trip. Jet lag is no joke.",
            "My {relative} wants to do a road trip along the coast this summer.",
        ),
        "more": (
            "I've never been, and everyone I know who went loved it.",
            "The renewal takes six weeks, apparently, so it's going to be tight.",
            "It leaves at six in the morning, so we'd be at the airport at four.",
            "I keep waking up at three and then falling asleep at my desk.",
            "They've already made a list of places to stop, and it's very long.",
        ),
        "ask": (
            "How long would you go for?",
            "Do you have anywhere to stay yet?",
            "Is the cheap flight really worth the early start?",
            "Would you go alone or with someone?",
            "Where would you stop along the way?",
        ),
        "relate": (
            "I went a few years ago. Go in shoulder season if you can, it's so much calmer.",
            "I once had to renew mine in a hurry. The express service was worth it.",
            "I did an early flight like that once and slept through the first day there.",
            "A road trip like that is on my list too. Maybe next year.",
        ),
        "tip": (
            "Book the first night somewhere near the station. It makes arriving easy.",
            "Put a reminder in your calendar now, before you forget again.",
            "Pack the night before and don't set the alarm too early.",
            "Leave a couple of days free. The best parts of trips are usually unplanned.",
        ),
        "plan": (
            "[I'll|I plan to|I'm hoping to|I want to] look at hotels [this weekend|on Saturday|in the next few days|soon].",
            "I'll fill in the form tonight, no more excuses.",
            "We'll probably book it anyway. Cheap is cheap.",
            "I'll ask for the days off before someone else takes them.",
        ),
    },
    "neighborhood": {
        "open": (
            "Did you hear they're closing the main road through {district} for a month?",
            "A new bakery opened near {place}, and there's already a line every morning.",
            "The council finally approved the new park in {district}.",
            "Someone started a community garden behind the library.",
            "The bus line to {district} is changing its route again.",
        ),
        "more": (
            "It's for the water pipes, apparently, so everything is going to go through the side streets.",
            "I tried their bread, and honestly, the line makes sense.",
            "It's been in the planning stage for about six years, so I'll believe it when I see it.",
            "They're looking for volunteers on {weekday} evenings.",
            "It'll add about ten minutes to my commute, which isn't the end of the world.",
        ),
        "ask": (
            "When does that start?",
            "Is it worth the wait?",
            "Where exactly are they putting it?",
            "Are you going to join?",
            "Does that change your commute much?",
        ),
        "relate": (
            "The last time they did that, it took twice as long as they said.",
            "I walked past it yesterday and the smell was unreal.",
            "I went to one of those planning meetings once. Lots of opinions, not much planning.",
            "My {relative} helps out at one like that and loves it.",
        ),
        "tip": (
            "Maybe leave ten minutes earlier until it's done.",
            "Go around eleven. The rush is over by then.",
            "We should go to the opening, if there is one.",
            "Sign up. You'd be good at it.",
        ),
        "plan": (
            "I'll check the route map tonight.",
            "[I'll|I plan to|I'm hoping to|I want to] try their croissants on {weekday}.",
            "I'll ask about it at the next residents' meeting.",
            "I might go along on {weekday} and see what it's like.",
        ),
    },
    "weather": {
        "open": (
            "It's been {weather} all week. I'm starting to take it personally.",
            "That storm last night kept me up for hours.",
            "The mornings are getting dark so early now.",
            "It's supposed to be {weather} on {weekday}, so I might work from home.",
        ),
        "more": (
            "My umbrella gave up on the way to work, so I arrived looking like a wet cat.",
            "The wind was rattling the windows, and something kept banging outside.",
            "I don't mind the cold, but I do miss the light.",
            "I'd rather not sit in traffic for an hour if I don't have to.",
        ),
        "ask": (
            "Did your garden survive the night?",
            "Do you find it harder to get up in the mornings too?",
            "Is the weather meant to clear up by the weekend?",
            "Is your office fine with that?",
        ),
        "relate": (
            "Same here. I've given up on looking presentable when I arrive anywhere.",
            "Our trash can ended up two houses down the street.",
            "I bought one of those daylight lamps last winter. It helps more than I expected.",
            "I do that every winter. Nobody at work minds, as long as I answer my emails.",
        ),
        "tip": (
            "Get a proper raincoat. Umbrellas are hopeless in that wind.",
            "Check the fence in the morning, just to be safe.",
            "Try to get outside at lunchtime, even for ten minutes.",
            "Let's just stay in and cook something warm.",
        ),
        "plan": (
            "I'm buying a better umbrella [this weekend|on Saturday|in the next few days|soon].",
            "I'll go and look at the garden once it's light.",
            "I'll set my alarm a bit later and stop fighting it.",
            "I'll ask my team tomorrow.",
        ),
    },
}
