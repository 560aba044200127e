import Foundation

/// libFuzzer entry point: every input must parse as a message and as an mbox without a crash,
/// a sanitizer report or a timeout. Built by `run-mime-fuzzer.sh` together with Sources/MailParsing.
@_cdecl("LLVMFuzzerTestOneInput")
public func mimeParserFuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let message = MIMEParser.parse(bytes, fallbackDate: nil)
    precondition(message.size == bytes.count)
    if let html = message.htmlBody { _ = HTMLTextExtractor.plainText(from: html) }
    for m in MboxReader(data: Data(bytes)) {
        precondition(m.offset <= m.endOffset && m.endOffset <= bytes.count)
        _ = MIMEParser.parse(m.bytes, mboxFromLineDate: m.fromLineDate, fallbackDate: nil)
    }
    if bytes.count < 4096 {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = MailDateParser.parse(text)
        _ = AddressParser.parseList(text)
        _ = EncodedWordDecoder.decode(text)
        _ = MIMEHeaderValue(text)
        _ = MaildirInfo.parse(filename: text)
    }
    return 0
}
