/// Word lists and sentence fragments the messages are composed from.
enum Vocabulary {
    struct Words: Sendable {
        let colleagueFirstNames: [[UInt8]]
        let fullNames: [[UInt8]]
        let candidates: [[UInt8]]
        let times: [[UInt8]]
        let projects: [[UInt8]]
        let cities: [[UInt8]]
        let rooms: [[UInt8]]
        let departments: [[UInt8]]
        let customers: [[UInt8]]
        let restaurants: [[UInt8]]
        let products: [[UInt8]]
        let events: [[UInt8]]
        let swiftVersions: [[UInt8]]
    }

    static let words = Words(
        colleagueFirstNames: Cast.people.filter { $0.circle == .colleague }.map(\.firstName),
        fullNames: Cast.people.filter { $0.circle != .brand && !$0.name.contains(",") && !$0.name.contains(".") }
            .map { Array($0.name.utf8) },
        candidates: bytes(["Jordan Lee", "Priyanka Rao", "Daniel Okafor", "Mia Fischer", "Carlos Mendes", "Hana Sato", "Ethan Brooks"]),
        times: bytes(["9:00", "9:30", "10:00", "10:30", "11:00", "11:30", "1:00 pm", "2:00 pm", "2:30 pm", "3:00 pm", "4:00 pm", "4:30 pm"]),
        projects: bytes(["Atlas", "Phoenix", "Orion", "Helix", "Nimbus", "Project Alpha", "Beacon"]),
        cities: bytes(["Lisbon", "Berlin", "Austin", "Toronto", "Singapore", "Denver", "Chicago", "Seattle", "Tokyo",
                       "São Paulo", "Zürich", "Barcelona", "Montréal", "Kraków", "Copenhagen"]),
        rooms: bytes(["Room 4B", "the Maple room", "the Everest room", "the large conference room", "the third-floor lounge"]),
        departments: bytes(["Engineering", "Marketing", "Sales", "Finance", "Customer Support", "Design", "Operations"]),
        customers: bytes(["Globex", "Initech", "Vandelay Industries", "Northwind Traders", "Tailspin Toys",
                          "Wide World Importers", "Litware", "Proseware", "Fourth Coffee", "Adventure Works"]),
        restaurants: bytes(["Luigi's Trattoria", "Sakura Sushi", "The Green Fork", "Taquería El Sol", "Bombay Spice",
                            "Le Petit Café", "Smokehouse BBQ", "Pho Saigon"]),
        products: bytes(["running shoes", "noise-cancelling headphones", "espresso machines", "winter jackets",
                         "smart watches", "laptop backpacks", "travel guides", "cookbooks", "single-origin coffee",
                         "hiking boots", "wireless earbuds", "standing desks"]),
        events: bytes(["Board Game Night", "Sunday Morning Run", "Photography Walk", "Tech Meetup: Swift on Server",
                       "Jazz in the Park", "Farmers Market Tour"]),
        swiftVersions: bytes(["6.0", "6.1", "6.2", "6.3"])
    )

    static func bytes(_ strings: [String]) -> [[UInt8]] { strings.map { Array($0.utf8) } }
    static func templates(_ strings: [String]) -> [Template] { strings.map(Template.init) }

    // MARK: Conversation fragments

    static let greetings = templates(["Hi {first},", "Hello {first},", "Hey {first},", "{first},", "Good morning {first},", "Hi {first}!"])
    static let formalGreetings = templates(["Dear {first},", "Hello {first},", "Hi {first},"])
    static let groupGreetings = templates(["Hi all,", "Hi team,", "Hello everyone,"])
    static let closings = templates(["Thanks,", "Best,", "Cheers,", "Thanks!", "Best regards,", "Talk soon,", "Kind regards,"])
    static let fillers = templates([
        "Let me know what you think.",
        "Happy to discuss on a call if that's easier.",
        "Thanks for pulling this together.",
        "I'll follow up once I hear back.",
        "No rush, but it would be great to close this out this week.",
        "Let me know if I missed anything.",
        "I'm around all afternoon if you want to talk it through.",
        "Looping in {colleague} for visibility.",
    ])
    static let replyOpeners = templates([
        "Thanks {first}.", "Thanks for the update.", "Sounds good.", "Agreed.", "Good point, {first}.",
        "Quick follow-up on this.", "Following up on the thread below.", "+1", "Makes sense to me.",
        "Thanks, this is helpful.",
    ])
    static let forwardNotes = templates([
        "FYI, see below.", "Forwarding this for your records.", "Can you take a look at this?",
        "Sharing in case it's useful.", "Could you handle this one? Thanks!",
        "Please file this with the {month} expenses.",
    ])
    static let acknowledgements = templates([
        "Got it, thanks!", "Thanks, I'll take care of it.", "Received, thank you.", "On it.",
        "Thanks for forwarding, I'll add it to the tracker.",
    ])
}

/// A subject of conversation: its subjects, the sentences of a first message and of replies,
/// and the attachments it may carry.
struct ConversationTopic: Sendable {
    let name: String
    let subjects: [Template]
    let sentences: [Template]
    let replies: [Template]
    let attachments: [Template]
    /// Whether threads on this topic may carry the custom label "Projects".
    let isProject: Bool

    init(_ name: String, isProject: Bool = false, subjects: [String], sentences: [String],
         replies: [String], attachments: [String] = []) {
        self.name = name
        self.isProject = isProject
        self.subjects = Vocabulary.templates(subjects)
        self.sentences = Vocabulary.templates(sentences)
        self.replies = Vocabulary.templates(replies)
        self.attachments = Vocabulary.templates(attachments)
    }
}
