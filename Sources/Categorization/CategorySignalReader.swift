import Foundation
import MailModel
import MailParsing

/// Reads `CategorySignals` from a message's headers (once, when the message is converted, or
/// again from its source when mail stored earlier is categorised).
public enum CategorySignalReader {
    /// Header names (lower case) that only bulk-mail services write.
    static let serviceHeaders: Set<String> = [
        "x-sg-eid", "x-sg-id", "feedback-id", "x-mc-user", "x-mailgun-sid", "x-mailgun-tag", "x-mailgun-variables",
        "x-ses-outgoing", "x-csa-complaints", "x-campaign", "x-campaignid", "x-campaign-id", "x-mailjet-campaign",
        "x-mailjet-campaignid", "x-sfmc-stack", "x-mktid", "x-marketo-id", "x-msys-api", "x-pm-message-id",
        "x-emarsys-id", "x-listmember", "x-rpcampaign", "x-hubspot-mail", "x-klaviyo-id", "x-job", "x-sendinblue-id",
        "x-mailer-sid", "x-cm-campaign", "x-cmail-id", "x-ebay-mailtracker", "x-abuse-reports-to", "x-report-abuse",
    ]
    /// Name prefixes (lower case) of bulk-mail services' headers.
    static let serviceHeaderPrefixes = ["x-mailchimp-", "x-mc-", "x-sg-", "x-mailgun-", "x-ses-", "x-sfmc-", "x-mandrill-",
                                        "x-sparkpost-", "x-campaign-", "x-marketo-", "x-klaviyo-", "x-hs-"]
    /// Words of `X-Mailer` values of bulk-mail services (lower case).
    static let serviceMailers = ["mailchimp", "sendgrid", "mailgun", "campaign monitor", "exacttarget", "salesforce",
                                 "hubspot", "klaviyo", "sendinblue", "brevo", "constant contact", "mailjet", "marketo",
                                 "phplist", "acumbamail", "mailerlite", "getresponse", "aweber", "sparkpost", "emarsys",
                                 "cheetahmail", "responsys", "eloqua", "mandrill", "postmark", "dotdigital", "newsletter"]
    /// Words of `X-Mailer`/`User-Agent` values of programs people write with (lower case).
    static let personalMailers = ["outlook", "thunderbird", "apple mail", "iphone mail", "ipad mail", "mutt", "evolution",
                                  "kmail", "claws", "sylpheed", "lotus notes", "roundcube", "squirrelmail", "gnus",
                                  "alpine", "pine", "eudora", "the bat", "k-9 mail", "android mail", "mailmate", "postbox",
                                  "seamonkey", "gmail"]

    /// Whether an address (a header value, lower case) is a list's owner, request or bounce
    /// address: majordomo's `owner-x@`/`x-owner@`/`x-request@`, Mailman's `x-admin@`/`x-bounces@`
    /// (and its VERP `x-bounces+…@`), LISTSERV's `x-l@` and `owner-x-l@`.
    static func isListAddress(_ value: String) -> Bool {
        guard let address = addressPart(value), let at = address.lastIndex(of: "@") else { return false }
        let local = address[..<at]
        let domain = address[address.index(after: at)...]
        let head = local.split(separator: "+", maxSplits: 1).first.map(String.init) ?? String(local)
        if head.hasPrefix("owner-") && head.count > 6 { return true }
        for suffix in ["-owner", "-request", "-admin", "-bounces", "-l"] where head.hasSuffix(suffix) && head.count > suffix.count {
            return true
        }
        return domain.hasPrefix("listserv.")
    }

    /// The address in a header value: inside `<…>` when there is one, else the first word with an `@`.
    static func addressPart(_ value: String) -> Substring? {
        if let open = value.firstIndex(of: "<"), let close = value[open...].firstIndex(of: ">") {
            let inside = value[value.index(after: open)..<close].trimmingCharacters(in: .whitespaces)
            return inside.contains("@") ? Substring(inside) : nil
        }
        return value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).first(where: { $0.contains("@") })
    }

    public static func signals(of message: ParsedMessage) -> CategorySignals {
        signals(headers: message.headers.map { ($0.name, $0.value) })
    }

    /// Signals of headers given as (name, value) pairs.
    public static func signals(headers: [(name: String, value: String)]) -> CategorySignals {
        var s: CategorySignals = []
        for (rawName, value) in headers {
            let name = rawName.lowercased()
            switch name {
            case "list-id": s.insert(.listId)
            case "list-post": s.insert(.listPost)
            case "mailing-list", "x-mailing-list": s.insert(.mailingList)
            case "list-unsubscribe": s.insert(.listUnsubscribe)
            case "feedback-id":
                // Bulk senders' campaign ids (Gmail's feedback loop: `a:b:campaign:sender`); a mail
                // service's own users get one too (Proton: `47010692:user:proton`): a person.
                if !value.lowercased().contains(":user:") { s.insert(.emailServiceProvider) }
            case "precedence":
                let v = value.lowercased()
                if v.contains("bulk") || v.contains("junk") { s.insert(.precedenceBulk) }
                if v.contains("list") { s.insert(.precedenceList) }
            case "auto-submitted":
                if !value.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("no") { s.insert(.autoSubmitted) }
            case "x-auto-response-suppress", "x-autoreply", "x-autorespond", "x-autogenerated":
                s.insert(.autoResponseHeader)
            case "return-path":
                let v = value.lowercased()
                if isListAddress(v) { s.insert(.listSender) }
                // VERP and mass-mailer bounce addresses: bounce-…@, …=example.com@, bnc…
                else if v.contains("bounce") || v.contains("bnc") || v.contains("mailer-daemon") || v.contains("=") {
                    s.insert(.bulkReturnPath)
                }
            case "sender":
                if isListAddress(value.lowercased()) { s.insert(.listSender) }
            case "errors-to":
                s.insert(.listSender)
            case "list-subscribe", "list-help", "list-archive", "list-owner", "x-beenthere", "x-mailman-version",
                 "x-loop", "x-list", "x-ml-name", "x-ml-count", "x-ecartis-version", "x-listprocessor-version",
                 "x-listserver", "x-list-administrivia", "x-sequence", "x-original-sender", "x-google-group-id",
                 "x-yahoo-newman-property", "x-egroups-return":
                s.insert(.listManager)
            case "delivered-to":
                if value.lowercased().hasPrefix("mailing list") { s.insert(.listManager) }
            case "x-mailer", "user-agent":
                let v = value.lowercased()
                if serviceMailers.contains(where: v.contains) { s.insert(.emailServiceProvider) }
                else if personalMailers.contains(where: v.contains) { s.insert(.personalMailer) }
            case "x-gmail-labels":
                for label in value.split(separator: ",") {
                    let trimmed = label.trimmingCharacters(in: CharacterSet(charactersIn: " \t\""))
                    if let c = CategorySignals.category(ofLabel: trimmed) { s.labelCategory = c }
                }
            case "x-gm-labels":
                for label in value.split(whereSeparator: { $0 == " " || $0 == "," }) {
                    let trimmed = label.trimmingCharacters(in: CharacterSet(charactersIn: " \t\"()"))
                    if let c = CategorySignals.category(ofLabel: trimmed) { s.labelCategory = c }
                }
            default:
                if serviceHeaders.contains(name) || serviceHeaderPrefixes.contains(where: name.hasPrefix) {
                    s.insert(.emailServiceProvider)
                }
            }
        }
        return s
    }
}
