/// Someone who sends or receives demo mail: a person, a company or a mailing list.
struct Person: Sendable {
    enum Circle: Sendable {
        case owner, colleague, external, friend, forumMember, brand
    }

    let name: String
    let firstName: [UInt8]
    let address: String
    let domain: [UInt8]
    /// `Name <address>` ready for an address header (RFC 2047 or quoted as needed).
    let headerMailbox: [UInt8]
    /// `Name <address>` in plain UTF-8, for attribution lines in bodies.
    let displayMailbox: [UInt8]
    let offsetMinutes: Int
    let circle: Circle
    /// How often this person starts a conversation, relative to others of the same circle.
    let weight: Int
    /// The signature block under the name, if the person uses one.
    let signature: [UInt8]?

    init(_ name: String, _ address: String, first: String? = nil, zone: Int, _ circle: Circle,
         weight: Int = 1, signature: String? = nil) {
        self.name = name
        self.address = address
        self.firstName = Array((first ?? String(name.split(separator: " ").first ?? Substring(name))).utf8)
        if let at = address.firstIndex(of: "@") {
            domain = Array(address[address.index(after: at)...].utf8)
        } else {
            domain = Array("example.com".utf8)
        }
        var header = HeaderEncoding.displayName(name)
        header.append(" <")
        header.appendString(address)
        header.append(UInt8(ascii: ">"))
        headerMailbox = header
        displayMailbox = Array("\(name) <\(address)>".utf8)
        offsetMinutes = zone
        self.circle = circle
        self.weight = weight
        self.signature = signature.map { Array($0.utf8) }
    }
}

/// The fixed cast of the demo corpus (about 70 senders); the owner is added per configuration.
enum Cast {
    static let people: [Person] = [
        // Colleagues at example.com: frequent work mail.
        Person("John Smith", "john@example.com", zone: -300, .colleague, weight: 14,
               signature: "John Smith\nEngineering Manager, Platform\nExample Inc. | +1 555 0100"),
        Person("Sarah Chen", "sarah.chen@example.com", zone: -480, .colleague, weight: 12,
               signature: "Sarah Chen\nDirector of Product\nExample Inc."),
        Person("Priya Patel", "priya.patel@example.com", zone: -300, .colleague, weight: 5),
        Person("Marcus Johnson", "marcus.johnson@example.com", zone: -360, .colleague, weight: 4,
               signature: "Marcus Johnson | Finance\nExample Inc."),
        Person("David Kim", "david.kim@example.com", zone: -480, .colleague, weight: 4),
        Person("Olivia Martinez", "olivia.martinez@example.com", zone: -300, .colleague, weight: 3),
        Person("Liam Nguyen", "liam.nguyen@example.com", zone: -480, .colleague, weight: 3),
        Person("Hannah Schmidt", "hannah.schmidt@example.com", zone: 60, .colleague, weight: 3),
        Person("Rachel Adler", "rachel.adler@example.com", zone: -300, .colleague, weight: 3,
               signature: "Rachel Adler\nRecruiting Lead\nWe're hiring! https://careers.example.com"),
        Person("Chris Taylor", "chris.taylor@example.com", zone: -300, .colleague, weight: 2),
        Person("Nina Petrova", "nina.petrova@example.com", zone: 60, .colleague, weight: 2),
        Person("Omar Haddad", "omar.haddad@example.com", zone: -300, .colleague, weight: 2,
               signature: "Omar Haddad\nSecurity Engineering"),
        Person("Grace Liu", "grace.liu@example.com", zone: -480, .colleague, weight: 2),
        Person("Ben Carter", "ben.carter@example.com", zone: -300, .colleague, weight: 2),
        Person("Fatima Al-Sayed", "fatima.alsayed@example.com", zone: 240, .colleague, weight: 2),
        Person("Kevin O'Connor", "kevin.oconnor@example.com", zone: 0, .colleague, weight: 2),
        Person("Zoë Laurent", "zoe.laurent@example.com", zone: 60, .colleague, weight: 2,
               signature: "Zoë Laurent\nProduct Design"),
        // Partners, customers and vendors.
        Person("José Müller", "jose.mueller@partner-gmbh.example", zone: 60, .external, weight: 3,
               signature: "José Müller\nMüller & Partner GmbH\nHauptstraße 12, 80331 München"),
        Person("François Dubois", "francois.dubois@agence-lumiere.example", zone: 60, .external, weight: 2),
        Person("Søren Nørgaard", "soren@nordlys.example", zone: 60, .external, weight: 2),
        Person("Małgorzata Kowalska", "m.kowalska@krakowsoft.example", first: "Gosia", zone: 60, .external, weight: 2),
        Person("Björn Åkesson", "bjorn.akesson@fjord-analytics.example", zone: 60, .external, weight: 2),
        Person("田中 由紀", "yuki.tanaka@tokyo-labs.example", first: "Yuki", zone: 540, .external, weight: 2),
        Person("Ana María Ruiz", "ana.ruiz@globex.example", first: "Ana", zone: -180, .external, weight: 2),
        Person("Smith, Robert", "robert.smith@initech.example", first: "Robert", zone: -360, .external, weight: 2,
               signature: "Robert Smith\nVP Operations, Initech"),
        Person("Dr. Emily O'Brien", "emily.obrien@vandelay.example", first: "Emily", zone: 0, .external, weight: 2),
        Person("Raj Malhotra", "raj.malhotra@litware.example", zone: 330, .external, weight: 2),
        Person("Lucas Silva", "lucas.silva@tailspin.example", zone: -180, .external, weight: 1),
        Person("Aisha Bello", "aisha.bello@proseware.example", zone: 60, .external, weight: 1),
        Person("Élodie Marchand", "elodie.marchand@agence-lumiere.example", zone: 60, .external, weight: 1),
        Person("Dmitri Volkov", "dmitri.volkov@northwind.example", zone: 180, .external, weight: 1),
        // Friends and family.
        Person("Linda Morgan", "linda.morgan@mail.example.net", first: "Mom", zone: -300, .friend, weight: 3),
        Person("Jamie Morgan", "jamie.morgan@mail.example.net", zone: -360, .friend, weight: 3),
        Person("Chris Walker", "chris.walker@mail.example.net", zone: -300, .friend, weight: 2),
        Person("Sam Rivera", "sam.rivera@mail.example.org", zone: -300, .friend, weight: 2),
        Person("Taylor Brooks", "taylor.brooks@mail.example.org", zone: -420, .friend, weight: 1),
        Person("Maya Singh", "maya.singh@mail.example.net", zone: 0, .friend, weight: 1),
        Person("Zoë Kim", "zoe.kim@mail.example.org", zone: -480, .friend, weight: 1),
        // Mailing-list members.
        Person("Ravi Kumar", "ravi.kumar@mail.example.org", zone: 330, .forumMember),
        Person("Helga Brandt", "helga.brandt@mail.example.de", zone: 60, .forumMember),
        Person("Pedro Alves", "pedro.alves@mail.example.org", zone: 0, .forumMember),
        Person("Mei Lin", "mei.lin@mail.example.org", zone: 480, .forumMember),
        Person("Oskar Nilsson", "oskar.nilsson@mail.example.se", zone: 60, .forumMember),
        Person("Tomás García", "tomas.garcia@mail.example.es", zone: 60, .forumMember),
        Person("Erin Walsh", "erin.walsh@mail.example.org", zone: -300, .forumMember),
        Person("Noah Fischer", "noah.fischer@mail.example.org", zone: -420, .forumMember),
        Person("Léa Rousseau", "lea.rousseau@mail.example.fr", zone: 60, .forumMember),
        Person("Kofi Mensah", "kofi.mensah@mail.example.org", zone: 0, .forumMember),
        // Companies: promotions (0...5), social networks (6...9), updates (10...16).
        Person("Northwind Outfitters", "deals@northwind-outfitters.example", zone: -300, .brand),
        Person("Fabrikam Electronics", "offers@fabrikam.example", zone: -480, .brand),
        Person("Contoso Travel", "hello@contoso-travel.example", zone: 0, .brand),
        Person("Tailspin Coffee Co.", "news@tailspin-coffee.example", zone: -480, .brand),
        Person("Litware Books", "store@litware-books.example", zone: -300, .brand),
        Person("Café Lumière", "bonjour@cafe-lumiere.example", zone: 60, .brand),
        Person("LinkUp", "notifications@linkup.example", zone: 0, .brand),
        Person("Chirper", "notify@chirper.example", zone: 0, .brand),
        Person("PhotoShare", "no-reply@photoshare.example", zone: 0, .brand),
        Person("Gatherly", "events@gatherly.example", zone: 0, .brand),
        Person("Acme Bank", "statements@acmebank.example", zone: -300, .brand),
        Person("ShopRight", "orders@shopright.example", zone: -480, .brand),
        Person("Parcel Express", "tracking@parcelexpress.example", zone: -300, .brand),
        Person("CloudHost Billing", "billing@cloudhost.example", zone: 0, .brand),
        Person("City Power & Light", "billing@citypower.example", zone: -300, .brand),
        Person("SkyWays Airlines", "itinerary@skyways.example", zone: -360, .brand),
        Person("Streamly", "receipts@streamly.example", zone: -480, .brand),
    ]

    static func indices(of circle: Person.Circle) -> [Int] {
        people.indices.filter { people[$0].circle == circle }
    }
}
