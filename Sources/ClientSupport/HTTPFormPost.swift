import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 POST of a form (`application/x-www-form-urlencoded`) and its whole answer, over TLS for
/// `https` (full verification, the system's roots) or plain `http` (loopback test servers): what an
/// OAuth 2.0 token endpoint takes (RFC 6749 §4.1.3, §6). No redirects, no cookies, no proxy; the body
/// of the answer is capped.
public enum HTTPFormPost {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public struct Answer: Sendable {
        public var status: Int
        public var body: [UInt8]
    }

    public static let maximumBody = 1 << 20

    public static func post(_ url: URL, form: [(String, String)], timeout: TimeAmount = .seconds(30),
                            caFile: String? = nil) async throws -> Answer {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", let host = url.host, !host.isEmpty else {
            throw Failure(message: "\(url.absoluteString) is not an http or https address")
        }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        let body = Array(encode(form).utf8)
        let endpoint = "\(host):\(port)"
        var tls: NIOSSLContext?
        if scheme == "https" {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .fullVerification
            if let caFile { configuration.additionalTrustRoots = [.file(caFile)] }
            tls = try NIOSSLContext(configuration: configuration)
        }
        let promise = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Answer.self)
        let collector = AnswerCollector(promise: promise)
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        let hostname = TLSClientContext.isIPAddress(host) ? nil : host
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: hostname))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(collector)
                }
            }
        let channel: Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            throw Failure(message: "cannot connect to \(endpoint): \(ConnectionFailure.reason(error))")
        }
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
        head.headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
        head.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        head.headers.add(name: "Accept", value: "application/json")
        head.headers.add(name: "Content-Length", value: String(body.count))
        head.headers.add(name: "Connection", value: "close")
        head.headers.add(name: "User-Agent", value: "MailSearch")
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        let deadline = channel.eventLoop.scheduleTask(in: timeout) {
            promise.fail(Failure(message: "\(endpoint) did not answer within \(ConnectionFailure.seconds(timeout))"))
            channel.close(promise: nil)
        }
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure(message: "the request to \(endpoint) failed: \(ConnectionFailure(error, endpoint: endpoint).message)")
        }
    }

    /// `a=b&c=d`, each part percent-encoded as a form (RFC 6749 Appendix B).
    public static func encode(_ form: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        func escape(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        }
        return form.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    private final class AnswerCollector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPClientResponsePart
        let promise: EventLoopPromise<Answer>
        var status = 0
        var body: [UInt8] = []
        var done = false

        init(promise: EventLoopPromise<Answer>) { self.promise = promise }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                status = Int(head.status.code)
            case .body(var buffer):
                if body.count + buffer.readableBytes > HTTPFormPost.maximumBody {
                    finish(.failure(Failure(message: "the answer is larger than \(HTTPFormPost.maximumBody / 1024) KB")))
                    context.close(promise: nil)
                    return
                }
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            case .end:
                finish(.success(Answer(status: status, body: body)))
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            finish(.failure(error))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(.failure(Failure(message: "the server closed the connection before answering")))
        }

        private func finish(_ result: Result<Answer, any Error>) {
            guard !done else { return }
            done = true
            promise.completeWith(result)
        }
    }
}
