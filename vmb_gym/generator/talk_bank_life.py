"""More everyday topics of the natural renderer's small talk (original text).

Same parts and placeholders as :mod:`vmb_gym.generator.talk_bank_topics`; ``[a|b]`` is a choice
made each time a text is used.
"""

from __future__ import annotations

from vmb_gym.generator.talk_bank_topics import Topic

MORE_TOPICS: dict[str, Topic] = {
    "garden": {
        "open": (
            "The [tomatoes|beans|zucchini] are finally coming up in the back garden.",
            "Something has been eating the lettuce, and I [have a suspect|think it's the snails].",
            "I spent [Saturday|the whole morning] digging out the old flower bed.",
            "My {relative} gave me cuttings from their rosemary, and [they've actually taken|they're thriving].",
            "I'm thinking of building a raised bed along the fence.",
        ),
        "more": (
            "I water them every evening, and I've started talking to them, which is [a new low|probably fine].",
            "I put down crushed eggshells, but I'm not convinced it works.",
            "The roots went much deeper than I expected. My back [is not happy|has opinions].",
            "It's the first time anything I planted has survived more than a month.",
            "I found a plan online that [looks simple enough|only needs a saw and some patience].",
        ),
        "ask": (
            "Are you growing them from seed?", "Have you tried netting?", "What are you going to plant instead?",
            "How big are you thinking?", "Do they need much sun?",
        ),
        "relate": (
            "My [grandmother|{relative}] swore by coffee grounds for that. No idea if it helped.",
            "We had the same problem last year and lost nearly everything.",
            "I tried a raised bed once. It was the only year the carrots came out straight.",
            "Our garden is mostly weeds at this point, [so you're ahead of me|but they're healthy weeds].",
        ),
        "tip": (
            "Go out at night with a flashlight. You'll see who the culprit is.",
            "Plant some marigolds near them. They're meant to keep pests away.",
            "Line the bottom with cardboard first. It stops the weeds coming through.",
            "Water in the morning if you can. Evening water attracts slugs.",
        ),
        "plan": (
            "I'll pick up some netting at the garden center on {weekday}.",
            "[I'll|I plan to|I'm hoping to|I want to] try again with a different variety next month.",
            "I'll start on it [this weekend|on Saturday|in the next few days|soon] if the weather holds.",
            "I'll send you a photo once it looks like something.",
        ),
    },
    "fitness": {
        "open": (
            "I went for a run this morning for the first time in [months|ages].",
            "I've started swimming before work, [twice a week|on Mondays and Thursdays].",
            "My gym has a new class that's basically dancing with weights.",
            "I signed up for a charity walk in {district} next month.",
            "I've been doing stretches every morning, and [my back actually feels better|I can nearly touch my toes].",
        ),
        "more": (
            "I made it about two miles before I had to walk. [Baby steps|Still counts].",
            "The pool is nearly empty at seven, which is the best part.",
            "It's exhausting, but I laughed the whole way through.",
            "It's about ten miles and it's for the children's hospital.",
            "Ten minutes, nothing heroic, but I haven't skipped a day yet.",
        ),
        "ask": (
            "Did you have a route in mind?", "Is the pool busy?", "Can anyone join?",
            "Are you training for it, or just going for it?", "Where did you find the routine?",
        ),
        "relate": (
            "I started running last spring and the first two weeks were awful. Then it clicked.",
            "I used to swim at that pool. The lifeguard there [knows everyone|has been there forever].",
            "I tried a class like that once and couldn't walk properly for two days.",
            "I did one of those walks last year. The people you meet on the way are lovely.",
        ),
        "tip": (
            "Get proper shoes. It makes more difference than anything else.",
            "Find someone to go with. It's harder to skip when someone's waiting for you.",
            "Don't do too much in the first week. Your knees will thank you.",
            "Put it in your calendar like a meeting. That's the only way it happens for me.",
        ),
        "plan": (
            "I'm aiming for three runs a week, [to start with|and we'll see].",
            "I'll try the class again on {weekday}.",
            "I'll set up a fundraising page tonight.",
            "[I'll|I plan to|I'm hoping to|I want to] keep going until the end of the month, then decide.",
        ),
    },
    "friends": {
        "open": (
            "I ran into an old friend from university at the [market|bakery] yesterday.",
            "Some friends are getting married in the summer and asked me to give a speech.",
            "We're having a few people over for dinner on {weekday}.",
            "A friend of mine just had a baby, and I have no idea what to get them.",
            "My friend from work is moving to {city} for a new job.",
        ),
        "more": (
            "We hadn't spoken in almost ten years, and it felt like no time had passed.",
            "I'm honoured, but I've never written a speech in my life.",
            "Nothing formal, just food and too much conversation.",
            "Everyone says to get something for the parents, not the baby.",
            "It's a great job, and I'm happy for her, but I'll miss our lunches.",
        ),
        "ask": (
            "Are you going to stay in touch?", "Do you know what you'll say?", "Who's coming?",
            "Boy or girl?", "When does she leave?",
        ),
        "relate": (
            "That happened to me last year at the airport. We ended up missing our flights talking.",
            "I gave one at my {relative}'s wedding. Keep it short and tell one good story.",
            "Those are the best evenings. The dishes can wait.",
            "When my friend had her first, the most useful thing I brought was a week of dinners.",
        ),
        "tip": (
            "Ask them for coffee before the moment passes.",
            "Start with a story only you know. People love that.",
            "Make one big dish and let everyone serve themselves. Less stress.",
            "Cook them a few meals for the freezer. New parents never have time.",
            "Plan a visit before she's even left. It makes goodbye easier.",
        ),
        "plan": (
            "[I'll|I plan to|I'm hoping to|I want to] send him a message this week.",
            "I'll write a first draft [this weekend|on Saturday|in the next few days|soon].",
            "I'll do the shopping on {weekday} evening.",
            "I'll drop something off next week.",
        ),
    },
    "gadgets": {
        "open": (
            "My phone screen cracked this morning. [Face down on the pavement|Right on the kitchen floor].",
            "I finally bought a new laptop. The old one was making noises.",
            "The internet at home has been cutting out every evening.",
            "I'm trying one of those apps that tells you how much time you spend on your phone.",
        ),
        "more": (
            "It still works, but there's a line right across the middle.",
            "It's so fast that I keep thinking something's wrong.",
            "The provider says it's fine on their end, which is what they always say.",
            "Apparently I spend three hours a day on it. I'd rather not know, [honestly|really|truly].",
        ),
        "ask": (
            "Is the {thing} still under warranty, do you think?", "Which one did you get?", "Have you tried restarting the router?",
            "Are you going to cut back?",
        ),
        "relate": (
            "I dropped mine last year and lived with the cracks for months.",
            "I got one last autumn. The battery life is the best part.",
            "Ours did that for weeks. It turned out to be a loose cable behind the couch.",
            "I tried that app once. I deleted it after two days.",
        ),
        "tip": (
            "There's a repair store near {place} that does screens in an hour.",
            "Move the old files over slowly. You'll find things you forgot you had.",
            "Call them and ask for an engineer visit. Be polite but stubborn.",
            "Turn off the notifications first. That helped me more than anything.",
        ),
        "plan": (
            "I'll take it in on {weekday}.", "[I'll|I plan to|I'm hoping to|I want to] set it up properly [this weekend|on Saturday|in the next few days|soon].",
            "I'll call them again tomorrow.", "I'll give it a week and see what it says.",
        ),
    },
    "volunteering": {
        "open": (
            "I started volunteering at the food bank on {weekday} mornings.",
            "The animal shelter asked if I could help with their fundraiser.",
            "Our street is organising a clean-up day in {district}.",
            "I've been reading to kids at the library once a week.",
        ),
        "more": (
            "It's mostly sorting tins, but the people there are wonderful.",
            "They need someone to organize the raffle, and somehow that's me now.",
            "About twenty people signed up, which is more than last year.",
            "One little boy asks for the same book every single week.",
        ),
        "ask": (
            "How did you hear about it?", "Do they need more people?", "What time does it start?",
            "Which book?",
        ),
        "relate": (
            "I did something similar in college. It was the best part of my week.",
            "My {relative} volunteers at one of those. They say it keeps them sane.",
            "We did one on our street a few years ago and found a bicycle in the hedge.",
            "I used to love being read to. That's a lovely thing to do.",
        ),
        "tip": (
            "Ask local shops for prizes. They often say yes.",
            "Bring gloves and a flask of tea. Trust me.",
            "Put a poster up at the library too. More people will come.",
            "Take a photo of the group at the end. People like seeing it afterwards.",
        ),
        "plan": (
            "I'll sign you up if you want.", "[I'll|I plan to|I'm hoping to|I want to] start asking around this week.",
            "I'll be there on {weekday}, rain or shine.", "I'll bring a new book next time, see if he bites.",
        ),
    },
    "interests": {
        "open": (
            "I've been reading about {subject} [lately|this week], and it's [fascinating|more complicated than I thought].",
            "I fell down a rabbit hole on {subject} {when}.",
            "I watched a talk about {subject} {when}, and I can't stop thinking about it.",
            "Did you know there's a whole society just for people who love {subject}?",
            "My {relative} sent me a book about {subject}, [and it's actually good|of all things].",
        ),
        "more": (
            "The more I read, the more I realize how little anyone really knows about it.",
            "There's a chapter on the people behind it, and their stories are [wild|the best part].",
            "It started with one article and somehow it was two in the morning.",
            "Some of it goes over my head, but the pictures alone are worth it.",
            "I keep telling people random facts about it. [Nobody has asked me to|I think they've had enough].",
            "It's changed how I look at [ordinary things|my walk to work], which I didn't expect.",
        ),
        "ask": (
            "What got you interested in {subject}?", "Is there a good book on it for beginners?",
            "What's the most surprising thing you've learned so far?", "Would you recommend the talk?",
            "Is that something you'd want to study properly?",
        ),
        "relate": (
            "I went through a phase like that with {subject2}. I still have all the books.",
            "My {relative} goes on about {subject2} like that. You two should compare notes.",
            "I read a little about that once, mostly the history side of it.",
            "I love that kind of thing. Last year it was {subject2} for me.",
        ),
        "tip": (
            "You should look for a local group. People who love that kind of thing are usually very welcoming.",
            "The library might have more on it. They're good with requests.",
            "Write some of it down. You'd be surprised how fast the details go.",
            "There's probably a podcast about it. There's a podcast about everything.",
        ),
        "plan": (
            "[I'll|I plan to|I'm hoping to|I want to] finish the book [this weekend|on Saturday|in the next few days|soon] and then find another one.",
            "I might go to one of their meetings, just to see.",
            "I'll send you the link tonight.",
            "I'll tell you the best parts over dinner, [whether you want them or not|if you'll let me].",
        ),
    },
    "day": {
        "open": (
            "What a day. {Snag}, and it only went downhill from there.",
            "I ran into {role} {when}, and we ended up talking for ages.",
            "I'm feeling {feeling} today, and I can't quite say why.",
            "{Role} asked me for a favor {when}, and I said yes before thinking.",
            "I finally had a quiet evening {when}. [It was glorious|I'd forgotten what that felt like].",
        ),
        "more": (
            "By lunch I'd given up on getting anything real done.",
            "It turns out we have a lot more in common than I thought.",
            "Maybe it's just the time of year. Everything feels a bit [heavy|slow] right now.",
            "It's not a big thing, it'll just eat my Saturday morning.",
            "I read, made tea, and went to bed at nine like a [retiree|sensible person].",
            "Saying it out loud to someone helps, I guess.",
        ),
        "ask": (
            "Did it get any better in the afternoon?", "What did you talk about?", "Is something on your mind?",
            "What kind of favor?", "Do you need a night like that more often?",
        ),
        "relate": (
            "My week started the same way. {Snag2}, and that set the tone.",
            "I had a day like that {when}. A long walk helped a little.",
            "I feel {feeling} too, [honestly|really|truly]. Maybe it's going around.",
            "I'm terrible at saying no as well. It's a whole problem.",
        ),
        "tip": (
            "Go to bed early tonight. Tomorrow will look different.",
            "Take a proper lunch break tomorrow, away from your desk.",
            "You're allowed to change your mind and say no, you know.",
            "Put your phone in another room for an hour. It works for me.",
        ),
        "plan": (
            "[I'll|I plan to|I'm hoping to|I want to] make something simple for dinner and watch {show}.",
            "I'll tell them I can only do the morning.",
            "I'll try to do the same again next {weekday}.",
            "I think I'll go for a walk before it gets dark.",
        ),
    },
    "pets": {
        "open": (
            "The cat knocked a plant off the windowsill again.",
            "We're dog-sitting for the neighbors this week.",
            "The vet says the dog needs to lose a bit of weight.",
            "I'm thinking about getting a second cat, so the first one has company.",
        ),
        "more": (
            "She looked straight at me while she did it, too.",
            "He's sweet, but he wakes up at five and wants to go out immediately.",
            "So no more treats from the table, which everyone will hate, him most of all.",
            "She seems bored during the day, and I feel bad leaving her alone.",
        ),
        "ask": (
            "Was anything broken?",
            "How's your sleep holding up?",
            "Is he taking the new diet well?",
            "Do you think they'd get along?",
        ),
        "relate": (
            "Ours went through a phase of that. It stopped once we moved the plants.",
            "Dog-sitting was how I ended up getting one myself. Be careful.",
            "We had to put ours on a diet too. Longer walks helped more than less food.",
            "My {relative} introduced a second cat last year. It took a month, but now they're inseparable.",
        ),
        "tip": (
            "Try a shelf she can't reach, or a heavier pot.",
            "Tire him out in the evening with a long walk. It helps with the early mornings.",
            "Those puzzle feeders are good. They slow him down.",
            "Ask the shelter about a trial week first.",
        ),
        "plan": (
            "I'll move the plants to the other room.",
            "[I'll|I plan to|I'm hoping to|I want to] try an extra walk at night.",
            "I'll talk to the vet about it next time.",
            "I'll look at the shelter's website [this weekend|on Saturday|in the next few days|soon].",
        ),
    },
    "money": {
        "open": (
            "I finally sat down and went through our monthly subscriptions.",
            "The insurance renewal came in, and it's gone up again.",
            "I'm trying to put a bit aside every month for a proper vacation.",
            "We got the quote for fixing the roof. It's not pretty.",
        ),
        "more": (
            "I found three I'd forgotten about, including a gym I haven't been to since spring.",
            "Nearly twenty percent, with no explanation at all.",
            "Not a lot, just enough that I don't feel guilty when the time comes.",
            "We could do it in two parts, which would make it easier to manage.",
        ),
        "ask": (
            "Did you cancel them?",
            "Are you going to store around?",
            "How are you keeping track of it?",
            "Do we need to do it before winter?",
        ),
        "relate": (
            "I did the same in January and saved more than I expected.",
            "Mine went up too. I called them and they dropped it after ten minutes on hold.",
            "I use a separate account for that. Out of sight, out of mind.",
            "Our neighbors had theirs done last year. I can ask who they used.",
        ),
        "tip": (
            "Call them and ask for a better rate. It works surprisingly often.",
            "Get at least two more quotes before deciding anything.",
            "Set it up as an automatic transfer, then you don't have to think about it.",
            "Keep one treat subscription, though. Life's too short.",
        ),
        "plan": (
            "I'll call them on {weekday}.",
            "[I'll|I plan to|I'm hoping to|I want to] get another quote next week.",
            "I'll set up the transfer tonight.",
            "I'll make a list and we can go through it together.",
        ),
    },
    "school": {
        "open": (
            "I signed up for an evening course on {hobby}.",
            "My {relative} asked me to help with their college application essay.",
            "I'm taking an online course for work, and the first assignment is due {weekday}.",
            "I went to a talk at the university about city history. It was packed.",
        ),
        "more": (
            "It's two evenings a week for ten weeks, which is more than I expected.",
            "It's a good draft, it just needs someone to tell them what to cut.",
            "It's mostly reading, but there's a short presentation at the end.",
            "The speaker had old photos of streets I walk down every day.",
        ),
        "ask": (
            "Is it hard to fit in around work?",
            "What are they applying for?",
            "What's the topic of the assignment?",
            "Was it recorded? I'd love to see it.",
        ),
        "relate": (
            "I did an evening class a few years back. The people were the best part.",
            "I helped my {relative} with theirs once. We cut it in half and it got better.",
            "My last online course was all quizzes. I'm not sure I learned much.",
            "I went to one of those last year. I still think about it when I drive past the old station.",
        ),
        "tip": (
            "Do the reading on your commute. It adds up fast.",
            "Read it out loud together. The weak parts jump out.",
            "Start the presentation early. It always takes longer than you think.",
            "Ask the speaker for the slides. They usually say yes.",
        ),
        "plan": (
            "I'll do the first reading [this weekend|on Saturday|in the next few days|soon].",
            "[I'll|I plan to|I'm hoping to|I want to] go through it with them on {weekday}.",
            "I'll start the assignment tonight.",
            "I'll email the organizers tomorrow.",
        ),
    },
}
