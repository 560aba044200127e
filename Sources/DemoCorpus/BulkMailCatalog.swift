/// Mail from companies: what one sender writes about.
struct BulkMailSpec: Sendable {
    let sender: Int
    let category: DemoMailCategory
    let subjects: [Template]
    let sentences: [Template]
    /// `Label: value` lines (order numbers, amounts, dates).
    let details: [Template]
    let linkLabels: [[UInt8]]
    let url: [UInt8]
    let attachments: [Template]
    let attachmentChance: Double
    let htmlChance: Double
    let isReceipt: Bool
    let isImportant: Bool

    init(_ address: String, _ category: DemoMailCategory, subjects: [String], sentences: [String],
         details: [String] = [], links: [String], url: String, attachments: [String] = [],
         attachmentChance: Double = 0, htmlChance: Double, isReceipt: Bool = false, isImportant: Bool = false) {
        guard let index = Cast.people.firstIndex(where: { $0.address == address }) else {
            preconditionFailure("no cast member \(address)")
        }
        sender = index
        self.category = category
        self.subjects = Vocabulary.templates(subjects)
        self.sentences = Vocabulary.templates(sentences)
        self.details = Vocabulary.templates(details)
        linkLabels = Vocabulary.bytes(links)
        self.url = Array(url.utf8)
        self.attachments = Vocabulary.templates(attachments)
        self.attachmentChance = attachmentChance
        self.htmlChance = htmlChance
        self.isReceipt = isReceipt
        self.isImportant = isImportant
    }
}

enum BulkMailCatalog {
    static let promotionSubjects = [
        "{percent}% off {product} this weekend only", "Flash sale: up to {percent}% off", "Your exclusive offer inside",
        "Last chance: the {season} sale ends tonight", "New arrivals: {product}", "Deals of the week from {brand}",
        "Free shipping on orders over $50", "A special offer just for you, {first}", "{season} Sale — up to {percent}% off",
        "Members save {percent}% on {product}",
    ]
    static let promotionSentences = [
        "Save {percent}% on {product} with code {code} at checkout.",
        "Our biggest sale of the season is here, with deals on {product} and more.",
        "Members get early access to new arrivals and free returns.",
        "This offer ends on {date}, so don't wait too long.",
        "Hand-picked deals on {product}, starting at just $19.",
        "Treat yourself: buy one, get one {percent}% off on all {product}.",
        "Shop now and get free shipping on orders over $50.",
        "Our customers rated these {product} 4.8 out of 5 — see why.",
    ]
    static let socialSentences = [
        "{name} commented: \"Great news, congratulations on the launch!\"",
        "{name} and {num} others liked your photo from {city}.",
        "You appeared in {num} searches this week.",
        "{name} shared an article: \"How we cut our cloud costs by {percent}%\".",
        "People you may know: {name}, {name2}.",
        "{name} is going to {event} on {date}.",
        "You have {num} unread messages and {num} new connection requests.",
    ]
    static let socialSubjects = [
        "{name} commented on your post", "{name} wants to connect with you", "You have {num} new notifications",
        "{name} tagged you in a photo", "{name} invited you to an event: {event}", "See what's trending in your network",
        "{name} mentioned you in a comment", "Your weekly summary: {num} profile views",
    ]

    static let specs: [BulkMailSpec] = [
        BulkMailSpec("deals@northwind-outfitters.example", .promotion, subjects: promotionSubjects,
                     sentences: promotionSentences, links: ["Shop the sale", "See all deals"],
                     url: "https://northwind-outfitters.example/sale", htmlChance: 0.95),
        BulkMailSpec("offers@fabrikam.example", .promotion, subjects: promotionSubjects,
                     sentences: promotionSentences, links: ["Claim your offer", "Browse new arrivals"],
                     url: "https://fabrikam.example/offers", htmlChance: 0.95),
        BulkMailSpec("hello@contoso-travel.example", .promotion,
                     subjects: ["Fly to {city} from $199", "Weekend getaways: {percent}% off hotels in {city}",
                                "Your next adventure: {city}", "Last-minute deals to {city}"],
                     sentences: ["Hotels in {city} are up to {percent}% off for stays before {date}.",
                                 "Round-trip flights to {city} start at $199 this week only.",
                                 "Book by {date} and get a free room upgrade.",
                                 "Travelers who visited {city} also loved {city}."],
                     links: ["Find your trip", "See the deals"], url: "https://contoso-travel.example/deals",
                     htmlChance: 0.95),
        BulkMailSpec("news@tailspin-coffee.example", .promotion,
                     subjects: ["New single-origin roast from Ethiopia", "Your coffee subscription: {percent}% off",
                                "The Tailspin Coffee newsletter — {month}"],
                     sentences: ["This month's roast has notes of blueberry, jasmine and dark chocolate.",
                                 "Subscribers save {percent}% on every bag, with free shipping.",
                                 "Our baristas share their favourite brewing tips for the pour-over."],
                     links: ["Shop coffee", "Manage subscription"], url: "https://tailspin-coffee.example/shop",
                     htmlChance: 0.9),
        BulkMailSpec("store@litware-books.example", .promotion,
                     subjects: ["Books we love this {season}", "{percent}% off bestsellers", "New releases for you, {first}"],
                     sentences: ["Our editors picked twelve novels for the {season} reading list.",
                                 "Bestsellers are {percent}% off until {date}.",
                                 "Based on your last order, you might enjoy these travel guides."],
                     links: ["Browse books"], url: "https://litware-books.example/picks", htmlChance: 0.9),
        BulkMailSpec("bonjour@cafe-lumiere.example", .promotion,
                     subjects: ["Café Lumière : offre spéciale {percent}%", "Nouveautés de la saison", "Votre carte fidélité"],
                     sentences: ["Profitez de {percent}% de réduction sur toutes nos pâtisseries jusqu'au {date}.",
                                 "Notre nouveau café de saison est arrivé — venez le goûter !",
                                 "Votre carte fidélité vous donne droit à une boisson offerte."],
                     links: ["Voir l'offre"], url: "https://cafe-lumiere.example/offre", htmlChance: 0.9),
        BulkMailSpec("notifications@linkup.example", .social, subjects: socialSubjects, sentences: socialSentences,
                     links: ["View notification", "See all activity"], url: "https://linkup.example/notifications",
                     htmlChance: 0.6),
        BulkMailSpec("notify@chirper.example", .social, subjects: socialSubjects, sentences: socialSentences,
                     links: ["Reply now", "See all activity"], url: "https://chirper.example/i/notifications",
                     htmlChance: 0.5),
        BulkMailSpec("no-reply@photoshare.example", .social,
                     subjects: ["{name} tagged you in a photo", "{name} shared an album with you: {city} {year}",
                                "Your memories from this day"],
                     sentences: ["{name} added {num} photos to the album \"{city} {year}\".",
                                 "{name} and {num} others liked your photo from {city}.",
                                 "Look back at your photos from this day last year."],
                     links: ["View photos"], url: "https://photoshare.example/albums", htmlChance: 0.6),
        BulkMailSpec("events@gatherly.example", .social,
                     subjects: ["{name} invited you to an event: {event}", "Reminder: {event} on {weekday}",
                                "New events near you"],
                     sentences: ["{event} takes place on {date} at 6:30 pm.", "{num} people from your groups are going.",
                                 "{name} is going to {event} on {date}."],
                     links: ["Accept invitation", "See event details"], url: "https://gatherly.example/events",
                     htmlChance: 0.5),
        BulkMailSpec("statements@acmebank.example", .update,
                     subjects: ["Your {month} statement is ready", "Account alert: payment received",
                                "Your credit card statement", "Low balance alert"],
                     sentences: ["Your monthly statement for the account ending in {last4} is now available.",
                                 "Sign in to online banking to view and download your statement.",
                                 "We received your payment of {price}. Thank you.",
                                 "For your security, we will never ask for your password by email."],
                     details: ["Account ending in {last4}", "Statement balance: {price}", "Payment due date: {date}",
                               "Minimum payment due: $35.00"],
                     links: ["View statement"], url: "https://acmebank.example/statements",
                     attachments: ["Statement {month} {year}.pdf"], attachmentChance: 0.3, htmlChance: 0.5,
                     isImportant: true),
        BulkMailSpec("orders@shopright.example", .update,
                     subjects: ["Your ShopRight order #{order} receipt", "Order confirmation #{order}", "Thanks for your order!",
                                "Your receipt from ShopRight"],
                     sentences: ["Thanks for shopping with us! Here is the receipt for your order.",
                                 "We'll send you another email when your items ship.",
                                 "Returns are free within 30 days of delivery."],
                     details: ["Order number: {order}", "Items: {num}", "Order total: {price}", "Payment: Visa ending in {last4}"],
                     links: ["View your order"], url: "https://shopright.example/orders",
                     attachments: ["Receipt {order}.pdf"], attachmentChance: 0.2, htmlChance: 0.7, isReceipt: true),
        BulkMailSpec("tracking@parcelexpress.example", .update,
                     subjects: ["Your package is on its way", "Shipment {tracking} is out for delivery",
                                "Delivered: your package from ShopRight", "Delivery attempt failed"],
                     sentences: ["Your shipment left our facility and is on its way.",
                                 "Your package will arrive between 10:00 and 14:00.",
                                 "We could not deliver your package; we will try again on {weekday}.",
                                 "Your package was delivered and left at the front door."],
                     details: ["Tracking number: {tracking}", "Estimated delivery: {day}", "Shipped from: {city}"],
                     links: ["Track your package"], url: "https://parcelexpress.example/track", htmlChance: 0.5),
        BulkMailSpec("billing@cloudhost.example", .update,
                     subjects: ["Your CloudHost invoice {invoice}", "Invoice {invoice} is available", "Payment receipt for {month}"],
                     sentences: ["Your invoice for the {month} billing period is now available.",
                                 "The amount will be charged to the card on file within 3 days.",
                                 "Compute usage increased by {pct} compared with last month."],
                     details: ["Invoice number: {invoice}", "Amount due: {price}", "Billing period: {month} {year}"],
                     links: ["View invoice"], url: "https://cloudhost.example/billing",
                     attachments: ["Invoice {invoice}.pdf"], attachmentChance: 0.7, htmlChance: 0.4, isReceipt: true),
        BulkMailSpec("billing@citypower.example", .update,
                     subjects: ["Your {month} electricity bill", "Your bill is ready", "Payment confirmation"],
                     sentences: ["Your electricity bill for {month} is ready.",
                                 "You used {pct} less electricity than the same month last year.",
                                 "Sign up for autopay and never miss a due date."],
                     details: ["Amount due: {price}", "Due date: {date}", "Usage: {bignum} kWh"],
                     links: ["Pay your bill"], url: "https://citypower.example/account",
                     attachments: ["Bill {month} {year}.pdf"], attachmentChance: 0.4, htmlChance: 0.5, isReceipt: true),
        BulkMailSpec("itinerary@skyways.example", .update,
                     subjects: ["Your trip to {city}: booking confirmation", "Check in now for your flight to {city}",
                                "Itinerary receipt {order}"],
                     sentences: ["Thank you for flying with SkyWays. Your booking is confirmed.",
                                 "Online check-in opens 24 hours before departure.",
                                 "Your seat is 14C, an aisle seat near the front of the cabin."],
                     details: ["Confirmation code: {code}", "Departure: {date} at {time}", "Destination: {city}"],
                     links: ["Manage booking"], url: "https://skyways.example/trips",
                     attachments: ["Itinerary {code}.pdf"], attachmentChance: 0.5, htmlChance: 0.6, isReceipt: true,
                     isImportant: true),
        BulkMailSpec("receipts@streamly.example", .update,
                     subjects: ["Your Streamly receipt", "Your subscription renews on {date}"],
                     sentences: ["Thanks for being a Streamly member.", "Your plan renews automatically every month."],
                     details: ["Plan: Premium", "Amount: $15.99", "Next billing date: {date}"],
                     links: ["Manage membership"], url: "https://streamly.example/account", htmlChance: 0.6,
                     isReceipt: true),
    ]

    static let promotions = specs.indices.filter { specs[$0].category == .promotion }
    static let social = specs.indices.filter { specs[$0].category == .social }
    static let updates = specs.indices.filter { specs[$0].category == .update }
}
