/// The local lists the rules read: social networks' sending domains, automatic and role senders,
/// and the words of transactional, promotional, social and bulk mail.
enum CategoryVocabulary {
    /// Domains social networks send notifications from (a sender's domain or any parent of it).
    static let socialDomains: Set<String> = [
        "facebookmail.com", "facebook.com", "fb.com", "instagram.com", "mail.instagram.com", "linkedin.com",
        "e.linkedin.com", "twitter.com", "x.com", "t.co", "pinterest.com", "explore.pinterest.com", "tiktok.com",
        "snapchat.com", "reddit.com", "redditmail.com", "tumblr.com", "quora.com", "meetup.com", "nextdoor.com",
        "strava.com", "goodreads.com", "myspace.com", "flickr.com", "vk.com", "ok.ru", "xing.com", "mastodon.social",
        "threads.net", "bsky.app", "discord.com", "discordapp.com", "twitch.tv", "youtube.com", "vimeo.com",
        "soundcloud.com", "deviantart.com", "behance.net", "dribbble.com", "medium.com", "substack.com", "whatsapp.com",
        "telegram.org", "viber.com", "badoo.com", "tinder.com", "hinge.co", "bumble.com", "okcupid.com",
        "match.com", "classmates.com", "plus.google.com", "hi5.com", "tagged.com", "foursquare.com", "yelp.com",
        "untappd.com", "letterboxd.com", "mewe.com", "gab.com", "clubhouse.com", "bereal.com",
    ]

    /// Local parts (whole, or before a `-`/`.`/`_`/`+`) of senders nobody answers: programs.
    static let automaticLocalParts: [String] = [
        "noreply", "no-reply", "no_reply", "donotreply", "do-not-reply", "do_not_reply", "notreply", "mailer-daemon",
        "postmaster", "notification", "notifications", "notify", "alert", "alerts", "automated", "auto-confirm",
        "autoconfirm", "bounce", "bounces", "system", "robot", "daemon", "updates", "update", "account", "accounts",
        "security", "verify", "verification", "confirm", "confirmation", "receipts", "receipt", "orders", "order",
        "billing", "invoice", "invoices", "shipping", "shipment", "tracking", "statements", "payments", "support-noreply",
    ]
    /// `automaticLocalParts` as bytes (all ASCII), for `RuleCategorizer.isAutomatic`.
    static let automaticLocalPartBytes: [[UInt8]] = automaticLocalParts.map { Array($0.utf8) }
    /// Local parts of senders that send newsletters and offers.
    static let marketingLocalParts: [String] = [
        "news", "newsletter", "newsletters", "marketing", "offers", "offer", "deals", "deal", "promo", "promotions",
        "promos", "sales", "shop", "store", "hello", "hi", "info", "team", "digest", "members", "rewards", "specials",
        "events", "community", "editor", "editors", "mail", "email", "emails", "campaign", "campaigns", "announce",
        "announcements",
    ]

    static let updates = Vocabulary("transactional", [
        "receipt", "invoice", "order", "orders", "shipped", "shipping", "shipment", "delivery", "delivered", "tracking",
        "payment", "paid", "statement", "bill", "billing", "transaction", "refund", "refunded", "password", "login",
        "itinerary", "booking", "booked", "reservation", "confirmation", "confirmed", "boarding", "appointment",
        "renewal", "renew", "renews", "subscription", "balance", "deposit", "purchase", "purchased", "charged", "charge",
        "verification", "verify", "otp", "security", "expires", "expiring", "reminder", "due", "overdue", "account",
        "sign-in", "signed in", "new login", "security alert", "verification code", "your order", "order #",
        "order number", "has shipped", "out for delivery", "amount due", "due date", "reset your password",
        "confirm your", "ticket", "e-ticket", "e-receipt", "your trip", "check-in", "pick up", "ready for pickup",
        "auto-pay", "autopay", "payment received", "direct debit", "bank",
    ])

    static let promotions = Vocabulary("promotional", [
        "sale", "sales", "discount", "discounts", "deal", "deals", "offer", "offers", "coupon", "coupons", "savings",
        "shop", "shopping", "clearance", "exclusive", "bestsellers", "bestseller", "newsletter", "webinar", "promo",
        "% off", "save up to", "free shipping", "limited time", "shop now", "new arrivals", "last chance",
        "ends tonight", "ends today", "black friday", "cyber monday", "promo code", "don't miss", "dont miss",
        "best sellers", "members get", "buy one", "special offer", "register now", "sign up now", "just dropped",
        "new collection", "flash sale", "our picks", "this week's", "top stories", "what's new", "in this issue",
        "read more", "learn more", "gift", "gifts",
    ])

    static let social = Vocabulary("social", [
        "commented", "liked", "tagged", "mentioned", "followers", "follower", "retweeted", "reposted", "endorsed",
        "friend request", "new follower", "followed you", "connection request", "invitation to connect",
        "wants to connect", "shared a post", "replied to your", "sent you a message", "your network", "your profile",
        "people you may know", "accepted your invitation", "reacted to", "your post", "your photo", "your story",
        "new message from", "added you", "birthday",
    ])

    /// Words of mail sent in bulk, whatever its headers say.
    static let bulkBody = Vocabulary("bulk", [
        "unsubscribe", "view this email in your browser", "view in browser", "view it in your browser",
        "you are receiving this", "you received this email because", "you're receiving this",
        "manage your preferences", "email preferences", "update your preferences", "opt out", "opt-out",
        "to stop receiving", "privacy policy", "all rights reserved", "this is an automated message",
        "do not reply to this email", "please do not reply", "this mailbox is not monitored", "no longer wish to receive",
    ])

    /// Every single word of the vocabularies the rules count (`TextFeatures(keeping:)`).
    static let wordHashes: Set<UInt64> = updates.wordHashes.union(promotions.wordHashes).union(social.wordHashes)
        .union(bulkBody.wordHashes)
}
