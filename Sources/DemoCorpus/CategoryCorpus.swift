import Foundation

/// A seeded, labelled corpus for judging a categoriser: receipts and notices, newsletters and
/// offers, social-network notifications, mailing-list posts and mail between people, each with a
/// varied mix of headers (List-Unsubscribe, bulk-mail services' headers, Precedence,
/// Auto-Submitted, no-reply and role senders, social domains, mail programs) and hard cases that
/// no single header decides: a person writing from a webmail address about an invoice, a newsletter
/// without List-Unsubscribe, a transactional notice with List-Unsubscribe, a social network missing
/// from any list, a list without List-Post. The truth travels beside the bytes, never in them.
public enum CategoryCorpus {
    public struct Message: Sendable {
        public var raw: [UInt8]
        public var messageId: String
        /// What the message is (`conversation` is Primary).
        public var truth: DemoMailCategory
        /// Which hard case it is, if any.
        public var hardCase: String?
        /// Whether the message is unread (mbox `Status: O`) .
        public var unread: Bool
    }

    /// `count` messages in a fixed mix (30% people, 20% notices, 20% offers, 15% social, 15% lists).
    public static func generate(count: Int, seed: UInt64 = 7) -> [Message] {
        var rng = SplitMix(seed: seed)
        var out: [Message] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            let roll = rng.below(100)
            let date = 1_700_000_000 + Int64(i) * 3_571
            switch roll {
            case 0..<30: out.append(person(i, date, &rng))
            case 30..<50: out.append(update(i, date, &rng))
            case 50..<70: out.append(promotion(i, date, &rng))
            case 70..<85: out.append(social(i, date, &rng))
            default: out.append(forum(i, date, &rng))
            }
        }
        return out
    }

    /// Writes the messages as one mbox (`Status: O` on the unread ones) and the truth as
    /// `labels.tsv` (Message-ID, category, hard case) beside it.
    public static func write(_ messages: [Message], mbox: URL, labels: URL) throws {
        var data = Data()
        var tsv = "message_id\tcategory\thard_case\n"
        for m in messages {
            data.append(contentsOf: Array("From sender@example.com Mon Jan  1 00:00:00 2024\n".utf8))
            if m.unread { data.append(contentsOf: Array("Status: O\n".utf8)) }
            var raw = m.raw
            // mboxrd: quote body lines starting with "From ".
            raw = Array(String(decoding: raw, as: UTF8.self).replacingOccurrences(of: "\nFrom ", with: "\n>From ").utf8)
            data.append(contentsOf: raw)
            data.append(contentsOf: Array("\n".utf8))
            tsv += "\(m.messageId)\t\(m.truth.rawValue)\t\(m.hardCase ?? "")\n"
        }
        try data.write(to: mbox)
        try Data(tsv.utf8).write(to: labels)
    }

    // MARK: Kinds

    static let firstNames = ["John", "Maria", "Wei", "Fatima", "Lukas", "Aisha", "Tom", "Elena", "Kenji", "Priya",
                             "Carlos", "Sofia", "Omar", "Hannah", "Ivan", "Grace", "Mateo", "Nadia", "Peter", "Lena"]
    static let lastNames = ["Smith", "Garcia", "Chen", "Khan", "Weber", "Okafor", "Brown", "Rossi", "Tanaka", "Patel",
                            "Lopez", "Novak", "Haddad", "Miller", "Petrov", "Kim", "Silva", "Ahmed", "Jones", "Berg"]
    static let webmail = ["gmail.com", "yahoo.com", "outlook.com", "hotmail.com", "icloud.com", "proton.me", "gmx.de"]
    static let companies = ["northwind.example", "contoso.example", "fabrikam.example", "initech.example", "globex.example"]
    static let mailers = ["Microsoft Outlook 16.0", "Mozilla Thunderbird 115.3.1", "iPhone Mail (20G75)",
                          "Apple Mail (2.3731.700.6)", "Mutt/2.2.9 (2022-11-12)", "Roundcube Webmail/1.6.2"]
    static let brands = [("Northpeak Outfitters", "northpeak.example"), ("Luma Home", "lumahome.example"),
                         ("Brightside Books", "brightsidebooks.example"), ("Cafe Verde", "cafeverde.example"),
                         ("Pixel & Co", "pixelco.example"), ("Trailhead Running", "trailheadrun.example"),
                         ("Orbit Electronics", "orbitelectronics.example"), ("Fern & Fig", "fernfig.example")]
    static let services = [("Parcelway", "parcelway.example"), ("Cobalt Bank", "cobaltbank.example"),
                           ("SkyJet Airlines", "skyjet.example"), ("Voltic Energy", "voltic.example"),
                           ("CloudNest", "cloudnest.example"), ("MediCare Clinic", "mediclinic.example"),
                           ("Orbit Electronics", "orbitelectronics.example"), ("StreamBox", "streambox.example")]

    static func person(_ i: Int, _ date: Int64, _ rng: inout SplitMix) -> Message {
        let (fromName, fromAddress) = personAddress(&rng)
        let (toName, toAddress) = personAddress(&rng)
        let first = toName.split(separator: " ")[0]
        var headers: [(String, String)] = []
        if rng.chance(0.5) { headers.append(("X-Mailer", rng.pick(mailers))) }
        if rng.chance(0.4) { headers.append(("In-Reply-To", "<p\(i - 1)@\(fromAddress.split(separator: "@")[1])>")) }
        var hard: String?
        let subject: String
        let body: String
        switch rng.below(10) {
        case 0:
            hard = "person about an invoice"
            subject = "Invoice for the kitchen work"
            body = "Hi \(first),\n\nattached is the invoice for the kitchen work. The payment is due Friday; the total is $1,240 and you can pay by bank transfer. Let me know if the order of the items looks wrong.\n\nThanks,\n\(fromName.split(separator: " ")[0])"
        case 1:
            hard = "person forwarding a sale"
            subject = "Fwd: 40% off hiking boots"
            body = "\(first), look at this sale, the boots you wanted are 40% off until Sunday. Shall we go Saturday?\n\n---------- Forwarded message ---------\nLast chance: 40% off everything, free shipping on orders over $50."
        case 2:
            hard = "person mentioning unsubscribe"
            subject = "That newsletter"
            body = "Hey \(first),\n\nI finally managed to unsubscribe from their newsletter, it was three emails a day. How was the trip?\n\n\(fromName.split(separator: " ")[0])"
        default:
            let topics = [("Lunch on Thursday?", "are you free for lunch on Thursday? The new place near the office has good soup."),
                          ("Draft of the report", "I went through the draft of the report and left comments on sections two and four. Can we talk tomorrow?"),
                          ("Weekend plans", "we are thinking of driving up to the lake on Saturday. Do you want to join us? Bring the kids."),
                          ("Re: budget for Q3", "the numbers look fine to me, but marketing wants another 10k for the launch. What do you think?"),
                          ("Photos from the wedding", "here are the photos from the wedding, the ones by the river came out really well."),
                          ("Meeting moved", "the meeting with the client moved to 3pm, same room. I will bring the printouts."),
                          ("Quick question", "do you still have the contact of the plumber who fixed your sink last year?")]
            let t = rng.pick(topics)
            subject = t.0
            body = "Hi \(first),\n\n\(t.1)\n\nBest,\n\(fromName.split(separator: " ")[0])"
        }
        return make(i, date, from: "\(fromName) <\(fromAddress)>", to: "\(toName) <\(toAddress)>", subject: subject,
                    headers: headers, body: body, truth: .conversation, hard: hard, unread: rng.chance(0.3))
    }

    static func update(_ i: Int, _ date: Int64, _ rng: inout SplitMix) -> Message {
        let (brand, domain) = rng.pick(services)
        let kinds: [(String, String, String)] = [
            ("Your order #\(100000 + i) has shipped", "orders", "Good news! Your order #\(100000 + i) has shipped and is on its way. Tracking number: 1Z\(i)88. Estimated delivery: Tuesday."),
            ("Your receipt from \(brand)", "receipts", "Thank you for your purchase. Receipt #\(i)\nAmount paid: $\(20 + i % 80).99\nPayment method: Visa ending 4242."),
            ("Your statement is ready", "statements", "Your monthly statement for account ending \(1000 + i % 9000) is now available. Balance due: $\(100 + i % 900).00, due date: the 15th."),
            ("Security alert: new sign-in to your account", "security", "We noticed a new sign-in to your \(brand) account from Chrome on Linux. If this was you, you can ignore this message. If not, reset your password."),
            ("Your booking is confirmed", "bookings", "Your reservation is confirmed. Confirmation code: K\(i)Q. Check-in opens 24 hours before departure. Your itinerary is attached."),
            ("Invoice \(2024_000 + i) from \(brand)", "billing", "Please find your invoice for this month. Total due: $\(30 + i % 60).00. Automatic payment will be charged on the 3rd."),
            ("Your verification code is \(100_000 + i % 900_000)", "verify", "Use this code to verify your account: \(100_000 + i % 900_000). It expires in 10 minutes."),
            ("Reminder: your appointment on Monday", "appointments", "This is a reminder of your appointment on Monday at 9:30. To reschedule, sign in to your account."),
        ]
        let (subject, role, text) = rng.pick(kinds)
        var local = rng.chance(0.45) ? rng.pick(["no-reply", "noreply", "donotreply", "notifications"]) : role
        var hard: String?
        if rng.chance(0.12) { local = "support"; hard = "notice from support@" }
        var headers: [(String, String)] = []
        if rng.chance(0.3) { headers.append(("Auto-Submitted", "auto-generated")) }
        if rng.chance(0.2) { headers.append(("X-Auto-Response-Suppress", "All")) }
        if rng.chance(0.4) { headers.append(espHeader(&rng)) }
        if rng.chance(0.2) {
            headers.append(("List-Unsubscribe", "<https://\(domain)/u/\(i)>"))
            hard = hard ?? "notice with List-Unsubscribe"
        }
        let footer = rng.chance(0.5) ? "\n\nThis is an automated message, please do not reply. \(brand), 1 Market Street." : "\n\n\(brand) customer service"
        return make(i, date, from: "\(brand) <\(local)@\(domain)>", to: "me@home.example", subject: subject, headers: headers,
                    body: "Hello,\n\n\(text)\(footer)", truth: .update, hard: hard, unread: rng.chance(0.5))
    }

    static func promotion(_ i: Int, _ date: Int64, _ rng: inout SplitMix) -> Message {
        let (brand, domain) = rng.pick(brands)
        let offers: [(String, String)] = [
            ("\(10 + i % 6 * 10)% off everything this weekend", "Our biggest sale of the season is here: \(10 + i % 6 * 10)% off everything, this weekend only. Shop now and save."),
            ("New arrivals: the autumn collection", "The autumn collection just dropped. Discover new arrivals and our best sellers, with free shipping on orders over $50."),
            ("Last chance: free shipping ends tonight", "Don't miss out! Free shipping ends tonight at midnight. Use promo code SHIP\(i % 100) at checkout."),
            ("The \(brand) newsletter: what's new this month", "In this issue: our picks for the month, a behind-the-scenes story from the workshop, and an exclusive offer for subscribers."),
            ("An exclusive offer for members", "As a member you get early access to our sale and a coupon for 15% off your next purchase. Limited time only."),
            ("Join our webinar on Thursday", "Register now for our free webinar: ten tips to get more out of your home office. Seats are limited."),
        ]
        let (subject, text) = rng.pick(offers)
        var headers: [(String, String)] = []
        var hard: String?
        let local = rng.pick(["news", "hello", "offers", "info", "team", "newsletter", "deals", "shop"])
        var from = "\(brand) <\(local)@\(rng.chance(0.5) ? "email." : "")\(domain)>"
        if rng.chance(0.08) {
            let name = rng.pick(firstNames)
            from = "\(name) at \(brand) <\(name.lowercased())@\(domain)>"
            hard = "offer signed by a person"
        }
        if rng.chance(0.12) {
            hard = hard ?? "newsletter without List-Unsubscribe or service headers"
        } else {
            if rng.chance(0.8) { headers.append(("List-Unsubscribe", "<https://\(domain)/unsubscribe?u=\(i)>, <mailto:unsub-\(i)@\(domain)>")) }
            if rng.chance(0.65) { headers.append(espHeader(&rng)) }
            if rng.chance(0.3) { headers.append(("Precedence", "bulk")) }
        }
        let footer = rng.chance(0.85)
            ? "\n\nYou are receiving this email because you subscribed to \(brand). Unsubscribe or manage your preferences at https://\(domain)/prefs."
            : "\n\n\(brand), 12 Harbour Road."
        return make(i, date, from: from, to: "me@home.example", subject: subject, headers: headers,
                    body: "\(text)\n\nShop the collection: https://\(domain)/shop\(footer)", truth: .promotion, hard: hard,
                    unread: rng.chance(0.6))
    }

    static func social(_ i: Int, _ date: Int64, _ rng: inout SplitMix) -> Message {
        let who = "\(rng.pick(firstNames)) \(rng.pick(lastNames))"
        let networks: [(String, String, String, String)] = [
            ("Facebook", "notification@facebookmail.com", "\(who) commented on your photo", "\(who) commented on your photo: \"What a view!\" Reply to the comment or see all comments."),
            ("LinkedIn", "invitations@linkedin.com", "\(who) wants to connect", "\(who) would like to join your professional network on LinkedIn. Accept the invitation to connect."),
            ("X", "notify@x.com", "\(who) followed you", "\(who) followed you. See their profile and posts, and follow back."),
            ("Instagram", "no-reply@mail.instagram.com", "\(who) mentioned you in a comment", "\(who) mentioned you in a comment on a post. See the post."),
            ("Reddit", "noreply@redditmail.com", "Trending in r/hiking", "A post you may like: the ten best trails in the Alps. 412 comments, 3.1k upvotes."),
            ("Pinterest", "recommendations@explore.pinterest.com", "New ideas for your board Kitchen", "We found pins you might like for your board Kitchen."),
            ("Meetup", "info@meetup.com", "New event: Saturday board games", "\(who) posted a new event in the group Board Gamers: Saturday at 2pm. RSVP now."),
        ]
        var n = rng.pick(networks)
        var hard: String?
        if rng.chance(0.15) {
            n = ("Clubfolk", "notifications@clubfolk.example", "\(who) replied to your post", "\(who) replied to your post in Garden Friends and liked your photo. See the conversation and your new followers.")
            hard = "a social network on no list"
        }
        var headers: [(String, String)] = []
        if rng.chance(0.7) { headers.append(("List-Unsubscribe", "<https://\(n.1.split(separator: "@")[1])/unsub/\(i)>")) }
        if rng.chance(0.5) { headers.append(("Feedback-ID", "\(i):social:\(n.0.lowercased())")) }
        if rng.chance(0.3) { headers.append(("Precedence", "bulk")) }
        return make(i, date, from: "\(n.0) <\(n.1)>", to: "me@home.example", subject: n.2, headers: headers,
                    body: "\(n.3)\n\nYou received this email because of your notification settings. Unsubscribe: https://\(n.1.split(separator: "@")[1])/settings",
                    truth: .social, hard: hard, unread: rng.chance(0.5))
    }

    static func forum(_ i: Int, _ date: Int64, _ rng: inout SplitMix) -> Message {
        let lists = [("rust-users", "lists.rust.example"), ("gardening", "groups.example"), ("sqlite-users", "mailinglists.sqlite.example"),
                     ("debian-user", "lists.debian.example"), ("photo-club", "googlegroups.com")]
        let (list, host) = rng.pick(lists)
        let (fromName, fromAddress) = personAddress(&rng)
        let subjects = ["Question about borrowing in closures", "Tomatoes splitting after rain", "WAL mode and NFS",
                        "Upgrade to bookworm broke wifi", "Best lens for street photos?", "Re: slow query with LIKE"]
        var headers: [(String, String)] = [("List-Id", "\(list) <\(list).\(host)>")]
        var hard: String?
        if rng.chance(0.8) { headers.append(("List-Post", "<mailto:\(list)@\(host)>")) } else { hard = "list without List-Post" }
        if rng.chance(0.8) { headers.append(("List-Unsubscribe", "<mailto:\(list)-leave@\(host)>")) }
        if rng.chance(0.6) { headers.append(("Precedence", "list")) }
        if host == "googlegroups.com" { headers.append(("Mailing-list", "list \(list)@\(host); contact \(list)+owners@\(host)")) }
        if rng.chance(0.4) { headers.append(("X-Mailer", rng.pick(mailers))) }
        let body = "\(rng.chance(0.5) ? "Hi all,\n\n" : "")I have been looking into this for a while and I am stuck. Has anyone seen the same thing? Any pointers welcome.\n\n\(fromName.split(separator: " ")[0])\n\n_______________________________________________\n\(list) mailing list\n\(list)@\(host)\nTo unsubscribe send a mail to \(list)-leave@\(host)"
        return make(i, date, from: "\(fromName) <\(fromAddress)>", to: "\(list)@\(host)", subject: "[\(list)] \(rng.pick(subjects))",
                    headers: headers, body: body, truth: .forum, hard: hard, unread: rng.chance(0.5))
    }

    static func personAddress(_ rng: inout SplitMix) -> (String, String) {
        let first = rng.pick(firstNames), last = rng.pick(lastNames)
        let domain = rng.chance(0.5) ? rng.pick(webmail) : rng.pick(companies)
        let local = rng.chance(0.6) ? "\(first).\(last)".lowercased() : "\(first.lowercased().prefix(1))\(last.lowercased())\(rng.below(90) + 10)"
        return ("\(first) \(last)", "\(local)@\(domain)")
    }

    static func espHeader(_ rng: inout SplitMix) -> (String, String) {
        switch rng.below(6) {
        case 0: return ("X-Mailchimp-Campaign", "c\(rng.below(1_000_000))")
        case 1: return ("X-SG-EID", "u001.\(rng.below(1_000_000_000))")
        case 2: return ("Feedback-ID", "\(rng.below(100_000)):campaign:esp")
        case 3: return ("X-Mailgun-Sid", "WyI\(rng.below(1_000_000))")
        case 4: return ("X-SES-Outgoing", "2024.01.01-54.240.1.1")
        default: return ("X-Campaign", "\(rng.below(100_000))")
        }
    }

    static func make(_ i: Int, _ date: Int64, from: String, to: String, subject: String, headers: [(String, String)],
                     body: String, truth: DemoMailCategory, hard: String?, unread: Bool) -> Message {
        // Opaque: nothing of the message but labels.tsv may say its category.
        let messageId = "\(String(UInt32(truncatingIfNeeded: UInt64(i + 1) &* 2_654_435_761), radix: 16)).\(i)@corpus.example"
        var text = "Message-ID: <\(messageId)>\nDate: \(rfc5322(date))\nFrom: \(from)\nTo: \(to)\nSubject: \(subject)\n"
        for (name, value) in headers { text += "\(name): \(value)\n" }
        text += "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n\(body)\n"
        return Message(raw: Array(text.utf8), messageId: messageId, truth: truth, hardCase: hard, unread: unread)
    }

    static func rfc5322(_ t: Int64) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "EEE, d MMM yyyy HH:mm:ss Z"
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(t)))
    }

    /// SplitMix64: small, seeded, the same on every platform.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E3779B97F4A7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
            z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }
}
