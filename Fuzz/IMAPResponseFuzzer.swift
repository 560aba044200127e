import Foundation

/// libFuzzer entry point for the IMAP protocol layer, built by `run-imap-fuzzer.sh` together with
/// Sources/IMAPProtocol. Every input is a server byte stream: framing it must give the same
/// responses however the reads are chunked (the first byte picks the chunking), each response
/// must parse or throw a typed error, and nothing may crash, trap, hang or run out of memory.
/// The same bytes as a password and a mailbox name must come out of the encoder as commands that
/// the framer's literal rules read back as one unit (no user byte can end a command).
private let smallLimits = IMAPResponseFramer.Limits(maxLiteralSize: 4096, maxLineLength: 2048, maxResponseSize: 8192)

@_cdecl("LLVMFuzzerTestOneInput")
public func imapResponseFuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let pattern = chunkPattern(bytes.first ?? 0)

    for limits in [IMAPResponseFramer.Limits(), smallLimits] {
        let whole = frame(bytes, limits: limits, chunks: [max(bytes.count, 1)])
        let chunked = frame(bytes, limits: limits, chunks: pattern)
        precondition(whole.frames == chunked.frames, "chunking changed the responses")
        precondition(whole.failed == chunked.failed, "chunking changed whether the stream was refused")
        for response in whole.frames {
            precondition(response.count <= bytes.count)
            check(try? IMAPResponseParser.parse(response), within: response.count)
        }
    }
    check(try? IMAPResponseParser.parse(bytes), within: bytes.count)

    if bytes.count < 8192 {
        encodeAndReadBack(bytes)
    }
    return 0
}

private func chunkPattern(_ seed: UInt8) -> [Int] {
    switch seed % 4 {
    case 0: return [1]
    case 1: return [Int(seed / 4) + 1]
    case 2: return [1, 2, 3, 5, 8, 13, 21, 34, 55, 89]
    default: return [Int(seed), 1, 7]
    }
}

private func frame(_ bytes: [UInt8], limits: IMAPResponseFramer.Limits, chunks: [Int]) -> (frames: [[UInt8]], failed: Bool) {
    var framer = IMAPResponseFramer(limits: limits)
    var frames: [[UInt8]] = []
    var offset = 0
    var i = 0
    repeat {
        let size = max(1, chunks[i % chunks.count])
        framer.append(bytes[min(offset, bytes.count)..<min(bytes.count, offset + size)])
        offset += size
        i += 1
        do {
            while let response = try framer.nextResponse() { frames.append(response) }
        } catch {
            return (frames, true)
        }
    } while offset < bytes.count
    return (frames, false)
}

/// A parsed response holds nothing larger than its bytes.
private func check(_ response: IMAPResponse?, within size: Int) {
    guard case .untagged(.fetch(let fetch))? = response else { return }
    for case .body(_, _, let data?) in fetch.items {
        precondition(data.count <= size)
    }
}

private func encodeAndReadBack(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    precondition(ModifiedUTF7.decode(ModifiedUTF7.encode(text)) == text, "modified UTF-7 does not round-trip")
    _ = IMAPMailboxName(raw: bytes).name

    let commands: [IMAPCommand] = [
        .login(username: text, password: text),
        .select(IMAPMailboxName(raw: bytes), .condStore),
        .list(reference: IMAPMailboxName(raw: bytes), pattern: text),
        .id(["name": text]),
    ]
    for capabilities: Set<IMAPCapability> in [[], [.literalPlus], [.literalMinus]] {
        var encoder = IMAPCommandEncoder(capabilities: capabilities)
        for command in commands {
            guard let encoded = try? encoder.encode(command) else {
                precondition(bytes.contains(0), "only a NUL may stop a command from being written")
                continue
            }
            // The whole command, continuations included, is one unit under the literal rules.
            var framer = IMAPResponseFramer(limits: .init(maxLiteralSize: 1 << 20, maxLineLength: 1 << 20, maxResponseSize: 1 << 22))
            framer.append(encoded.bytes)
            let unit = try? framer.nextResponse()
            precondition(unit.map { $0 + [0x0D, 0x0A] } == encoded.bytes, "a user byte ended the command early")
            precondition(framer.bufferedByteCount == 0)
            // Every part but the last ends in a synchronising literal's announcement.
            for part in encoded.parts.dropLast() {
                precondition(part.suffix(3) == Array("}\r\n".utf8) && !part.suffix(4).starts(with: [UInt8(ascii: "+")]))
            }
        }
    }
}
