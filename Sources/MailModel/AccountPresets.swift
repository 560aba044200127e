/// How to reach a common provider's mail servers, so that a person adding an account gives only an
/// address and a password (or signs in). The hosts, ports and security are the providers' published
/// settings; `passwordNote` says what the provider asks for instead of the account's own password.
public struct AccountPreset: Sendable, Codable, Hashable {
    /// `gmail`, `outlook`, `fastmail`, `icloud`, `yahoo`.
    public var id: String
    public var name: String
    /// The address domains that mean this provider.
    public var domains: [String]
    public var imapHost: String
    public var imapPort: Int
    /// `tls` (implicit, 993) or `startTLS`.
    public var imapSecurity: String
    public var smtpHost: String
    public var smtpPort: Int
    /// `tls` (implicit, 465) or `startTLS` (587).
    public var smtpSecurity: String
    /// The OAuth 2.0 provider that signs in to it (`google`, `microsoft`), nil when it takes passwords only.
    public var oauthProvider: String?
    /// What to log in with, in words for the page.
    public var passwordNote: String

    public init(id: String, name: String, domains: [String], imapHost: String, imapPort: Int = 993, imapSecurity: String = "tls",
                smtpHost: String, smtpPort: Int, smtpSecurity: String, oauthProvider: String? = nil, passwordNote: String) {
        self.id = id
        self.name = name
        self.domains = domains
        self.imapHost = imapHost
        self.imapPort = imapPort
        self.imapSecurity = imapSecurity
        self.smtpHost = smtpHost
        self.smtpPort = smtpPort
        self.smtpSecurity = smtpSecurity
        self.oauthProvider = oauthProvider
        self.passwordNote = passwordNote
    }

    public static let all: [AccountPreset] = [
        AccountPreset(id: "gmail", name: "Gmail", domains: ["gmail.com", "googlemail.com"],
                      imapHost: "imap.gmail.com", smtpHost: "smtp.gmail.com", smtpPort: 465, smtpSecurity: "tls",
                      oauthProvider: "google",
                      passwordNote: "Sign in with Google, or use an app password (Google Account → Security → 2-Step Verification → App passwords); Google refuses the account's own password over IMAP."),
        AccountPreset(id: "outlook", name: "Outlook.com / Microsoft 365", domains: ["outlook.com", "hotmail.com", "live.com", "msn.com"],
                      imapHost: "outlook.office365.com", smtpHost: "smtp.office365.com", smtpPort: 587, smtpSecurity: "startTLS",
                      oauthProvider: "microsoft",
                      passwordNote: "Sign in with Microsoft: Microsoft has turned off password logins (basic authentication) for IMAP and SMTP."),
        AccountPreset(id: "fastmail", name: "Fastmail", domains: ["fastmail.com", "fastmail.fm", "fastmail.net"],
                      imapHost: "imap.fastmail.com", smtpHost: "smtp.fastmail.com", smtpPort: 465, smtpSecurity: "tls",
                      passwordNote: "Use an app password (Settings → Privacy & Security → Integrations → App passwords)."),
        AccountPreset(id: "icloud", name: "iCloud Mail", domains: ["icloud.com", "me.com", "mac.com"],
                      imapHost: "imap.mail.me.com", smtpHost: "smtp.mail.me.com", smtpPort: 587, smtpSecurity: "startTLS",
                      passwordNote: "Use an app-specific password (account.apple.com → Sign-In and Security → App-Specific Passwords)."),
        AccountPreset(id: "yahoo", name: "Yahoo Mail", domains: ["yahoo.com", "ymail.com", "rocketmail.com"],
                      imapHost: "imap.mail.yahoo.com", smtpHost: "smtp.mail.yahoo.com", smtpPort: 465, smtpSecurity: "tls",
                      passwordNote: "Use an app password (Account Security → Generate app password)."),
    ]

    /// The preset of an address's domain (`me@gmail.com` → Gmail), nil for any other domain.
    public static func forAddress(_ address: String) -> AccountPreset? {
        guard let at = address.lastIndex(of: "@") else { return nil }
        let domain = address[address.index(after: at)...].lowercased()
        return all.first { $0.domains.contains(domain) }
    }

    public static func named(_ id: String) -> AccountPreset? {
        all.first { $0.id == id.lowercased() }
    }
}
