/// libFuzzer entry point for the SMTP protocol layer, built by `run-smtp-fuzzer.sh` together with
/// Sources/SMTPProtocol. Every input is a server byte stream: framing it must give the same
/// replies however the reads are chunked (the first byte picks the chunking) and nothing may
/// crash, trap or hang. The same bytes as an address and as a message must never come out as more
/// than one command line, nor end the DATA payload before its own terminating dot.
@_cdecl("LLVMFuzzerTestOneInput")
public func smtpProtocolFuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []

    // Replies: chunking changes nothing.
    let whole = frame(bytes, chunks: [max(bytes.count, 1)])
    let chunked = frame(bytes, chunks: chunkPattern(bytes.first ?? 0))
    precondition(whole.replies == chunked.replies, "chunking changed the replies")
    precondition(whole.failed == chunked.failed, "chunking changed whether the stream was refused")
    for reply in whole.replies {
        precondition((200...599).contains(reply.code))
        _ = SMTPCapabilities(ehloReply: reply).maximumSize
        _ = reply.enhancedCode
    }

    // Addresses: accepted ones carry no control character and encode as one line.
    let text = String(decoding: bytes.prefix(512), as: UTF8.self)
    if let address = try? SMTPAddress(text) {
        precondition(!address.address.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
        for command in [SMTPCommand.rcptTo(address), .mailFrom(address, size: 1, body: .eightBitMIME, smtpUTF8: true)] {
            if let line = try? command.encoded() { checkOneLine(line) }
        }
    }
    if let line = try? SMTPCommand.ehlo(domain: text).encoded() { checkOneLine(line) }
    if let line = try? SMTPCommand.authResponse(text).encoded() { checkOneLine(line) }

    // DATA: the only lone dot is the last line, and removing the stuffing gives the input with CRLF line ends.
    let encoded = SMTPDataEncoder.encode(bytes)
    precondition(encoded.suffix(3).elementsEqual([46, 13, 10]))
    let lines = split(Array(encoded.dropLast(3)))
    precondition(!lines.contains([46]), "a lone dot before the end")
    let unstuffed = lines.map { $0.first == 46 ? Array($0.dropFirst()) : $0 }
    let expected = split(normalised(bytes))
    precondition(unstuffed == expected, "dot-stuffing changed the message")
    precondition(SMTPDataEncoder.wireSize(bytes) == normalised(bytes).count)
    return 0
}

private func checkOneLine(_ line: [UInt8]) {
    precondition(line.suffix(2).elementsEqual([13, 10]))
    precondition(!line.dropLast(2).contains(13) && !line.dropLast(2).contains(10) && !line.contains(0), "a command is more than one line")
}

/// Bytes with every line end CRLF and a final CRLF (what the encoder promises before stuffing).
private func normalised(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var previousWasCR = false
    for byte in bytes {
        if previousWasCR {
            previousWasCR = false
            if byte == 10 { continue }
        }
        if byte == 13 || byte == 10 {
            out += [13, 10]
            previousWasCR = byte == 13
        } else {
            out.append(byte)
        }
    }
    if !out.isEmpty && !out.suffix(2).elementsEqual([13, 10]) { out += [13, 10] }
    return out
}

/// CRLF-terminated lines without their CRLF.
private func split(_ bytes: [UInt8]) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    var current: [UInt8] = []
    var i = 0
    while i < bytes.count {
        if bytes[i] == 13, i + 1 < bytes.count, bytes[i + 1] == 10 {
            lines.append(current)
            current = []
            i += 2
        } else {
            current.append(bytes[i])
            i += 1
        }
    }
    precondition(current.isEmpty, "an unterminated line")
    return lines
}

private func chunkPattern(_ seed: UInt8) -> [Int] {
    switch seed % 4 {
    case 0: return [1]
    case 1: return [Int(seed / 4) + 1]
    case 2: return [1, 2, 3, 5, 8, 13, 21, 34, 55, 89]
    default: return [Int(seed), 1, 7]
    }
}

private func frame(_ bytes: [UInt8], chunks: [Int]) -> (replies: [SMTPReply], failed: Bool) {
    var framer = SMTPReplyFramer(maximumLineLength: 512, maximumLines: 64)
    var replies: [SMTPReply] = []
    var offset = 0
    var i = 0
    repeat {
        let size = max(1, chunks[i % chunks.count])
        framer.append(bytes[min(offset, bytes.count)..<min(bytes.count, offset + size)])
        offset += size
        i += 1
        do {
            while let reply = try framer.nextReply() { replies.append(reply) }
        } catch {
            return (replies, true)
        }
    } while offset < bytes.count
    return (replies, false)
}
