/// The SASL exchanges of AUTH (RFC 4954) as base64 lines. The credentials travel only in the
/// returned strings; errors never carry them.
public enum SMTPSASL {
    /// PLAIN (RFC 4616): `\0user\0password`, sent as AUTH's initial response.
    public static func plain(username: String, password: String) throws(SMTPEncodingError) -> String {
        try checkNoNUL(username, "user name")
        try checkNoNUL(password, "password")
        return Base64.encode([0] + Array(username.utf8) + [0] + Array(password.utf8))
    }

    /// LOGIN (the old, unregistered mechanism): the user name, then the password, each answering a 334.
    public static func login(username: String, password: String) throws(SMTPEncodingError) -> (username: String, password: String) {
        try checkNoNUL(username, "user name")
        try checkNoNUL(password, "password")
        return (Base64.encode(Array(username.utf8)), Base64.encode(Array(password.utf8)))
    }

    /// XOAUTH2 (Google, Microsoft): `user=U^Aauth=Bearer T^A^A`. A failure comes as a 334 with a
    /// base64 JSON error, which the client answers with an empty line to get the final 5xx.
    public static func xoauth2(username: String, accessToken: String) throws(SMTPEncodingError) -> String {
        for (value, name) in [(username, "user name"), (accessToken, "access token")] {
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw SMTPEncodingError(kind: .lineBreakOrControl, message: "the XOAUTH2 \(name) contains a control character")
            }
        }
        return Base64.encode(Array("user=\(username)\u{01}auth=Bearer \(accessToken)\u{01}\u{01}".utf8))
    }

    /// OAUTHBEARER (RFC 7628): the GS2 header `n,a=USER,` then `host=H^Aport=P^Aauth=Bearer T^A^A`
    /// (host and port when given, as §3.1 recommends). A failure comes as a 334 with a base64 JSON
    /// error, which the client answers with `oauthBearerErrorResponse` to get the final 5xx.
    public static func oauthBearer(username: String, accessToken: String, host: String? = nil, port: Int? = nil) throws(SMTPEncodingError) -> String {
        for (value, name) in [(username, "user name"), (accessToken, "access token"), (host ?? "", "host")] {
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw SMTPEncodingError(kind: .lineBreakOrControl, message: "the OAUTHBEARER \(name) contains a control character")
            }
        }
        // The authzid is a saslname (RFC 5801): "=" and "," escaped as =3D and =2C.
        var authzid = ""
        for character in username {
            switch character {
            case "=": authzid += "=3D"
            case ",": authzid += "=2C"
            default: authzid.append(character)
            }
        }
        var message = "n,a=\(authzid),\u{01}"
        if let host, !host.isEmpty { message += "host=\(host)\u{01}" }
        if let port { message += "port=\(port)\u{01}" }
        message += "auth=Bearer \(accessToken)\u{01}\u{01}"
        return Base64.encode(Array(message.utf8))
    }

    /// OAUTHBEARER's answer to the error challenge (RFC 7628 §3.2.3): a lone ^A, in base64.
    public static let oauthBearerErrorResponse = "AQ=="

    /// The text of a 334 challenge (base64), decoded; nil when it is not base64.
    public static func decodeChallenge(_ reply: SMTPReply) -> String? {
        Base64.decode(reply.lines[0].trimmingSpaces).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func checkNoNUL(_ value: String, _ name: String) throws(SMTPEncodingError) {
        guard !value.utf8.contains(0) else {
            throw SMTPEncodingError(kind: .lineBreakOrControl, message: "the \(name) contains a NUL byte, which SASL PLAIN and LOGIN cannot carry")
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
