import ArgumentParser
import CLIOutput
import Foundation
import Hummingbird
import IMAPSync
import Logging
import MailModel
import MailSearchKit
import MailSearchServer
import SearchCLI
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the search page (/) and the JSON API (/api/…) on this machine.",
        discussion: """
            Listens on 127.0.0.1:8025 by default, reachable from this machine only. Binding any other address needs a token (--token or $MAILSEARCH_TOKEN): every request must then send `Authorization: Bearer <token>`. Requests must name this server in their Host header (localhost, 127.0.0.1, [::1], the --host address or an --allow-host name), and cross-site requests are refused. Stop it with Ctrl-C (SIGINT) or SIGTERM.

              mailsearch serve                      # then open http://127.0.0.1:8025
              curl 'http://127.0.0.1:8025/api/search?q=budget+report&limit=5'
            """)

    @Option(help: ArgumentHelp("The address to listen on. Anything but loopback needs a token.", valueName: "address"))
    var host = ServerConfiguration.defaultHost

    @Option(help: ArgumentHelp("The port to listen on (0: any free port).", valueName: "port"))
    var port = ServerConfiguration.defaultPort

    @Option(help: ArgumentHelp("Require `Authorization: Bearer <token>` on every request. Default: $MAILSEARCH_TOKEN.",
                               discussion: "Prefer the environment variable: other users of this machine can see command lines.",
                               valueName: "token"))
    var token: String?

    @Option(name: .customLong("allow-host"), parsing: .singleValue,
            help: ArgumentHelp("Another name the Host header may give (for a server on 0.0.0.0 reached by this machine's name); repeatable.",
                               valueName: "name"))
    var allowedHosts: [String] = []

    @Option(help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel = "info"

    @Flag(inversion: .prefixedNo, help: "Embed new mail and read the text of new attachments in the background (at start and after imports and syncs).")
    var backgroundEmbedding = true

    @Flag(inversion: .prefixedNo, help: "Summarize conversations of 3+ messages in the background (after embedding, when that runs too), into mail.sqlite.")
    var backgroundSummaries = true

    @OptionGroup var llm: LLMOptions

    @Flag(inversion: .prefixedNo, help: "Keep the IMAP accounts in sync in the background (IDLE); their state is in /api/status.")
    var sync = true

    @Flag(inversion: .prefixedNo, help: "Send queued mail (after its undo window) and keep drafts in the accounts' Drafts folders; the queue's state is in /api/status.")
    var send = true

    @Option(help: ArgumentHelp("Seconds between Send and the SMTP transaction, during which Undo takes the message back (0 to 300; "
                               + "default: the page's setting, else 5).", valueName: "seconds"))
    var undoSeconds: Int?

    @Flag(inversion: .prefixedNo, help: "Opening a conversation on the page (or GET /api/threads/ID) marks it read.")
    var markReadOnOpen = true

    @Option(help: ArgumentHelp("Search answers kept for 2 minutes (spec 004); 0 turns the cache off (benchmarks).",
                               valueName: "n"))
    var cacheEntries = 20

    @Option(help: ArgumentHelp("Serve the search page's files from this folder instead of the copies built in (for working on them).",
                               valueName: "dir"))
    var webDir: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let undoSeconds, !(0...300).contains(undoSeconds) { throw ValidationError("--undo-seconds must be 0 to 300") }
        guard cacheEntries >= 0 else { throw ValidationError("--cache-entries must be 0 or more") }
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    var serverConfiguration: ServerConfiguration {
        let environment = ProcessInfo.processInfo.environment["MAILSEARCH_TOKEN"]
        return ServerConfiguration(host: host, port: port, token: token ?? environment, allowedHosts: allowedHosts,
                                   webDirectory: webDir, markReadOnOpen: markReadOnOpen)
    }

    func run() async throws {
        let configuration = serverConfiguration
        // Refuse before opening anything: a mailbox must not be served to the network unprotected.
        do {
            try configuration.validate()
        } catch let error as ServerConfigurationError {
            throw CLIError(error.description)
        }
        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "mailsearch.serve")

        let service = try global.openService(backgroundEmbedding: backgroundEmbedding, cacheEntries: cacheEntries,
                                             backgroundSummaries: backgroundSummaries, llm: llm.configuration)
        defer { service.shutdown() }
        service.sending.undoWindow = TimeInterval(undoSeconds ?? UserSettings.load(from: global.dataDirectory).undoSeconds ?? 5)
        // The send queue a previous process left, settled before anything new can be queued: a
        // message cut off in its undo window is a draft again, one handed to the server is never resent.
        let sender = MessageSender(service: service)
        if send {
            do {
                let recovered = try await sender.recover()
                if !recovered.drafted.isEmpty {
                    logger.notice("\(recovered.drafted.count) message(s) stopped in their undo window are drafts again (not sent)")
                }
                if !recovered.uncertain.isEmpty {
                    logger.warning("\(recovered.uncertain.count) message(s) may have been sent before the stop: not sent again (see /api/outgoing)")
                }
            } catch {
                throw CLIError("cannot read the send queue: \(error)")
            }
        }
        let started = LockedBox(false)  // whether the server got as far as listening
        let app = try buildApplication(service: service, configuration: configuration, logger: logger) { port in
            started.set(true)
            FileHandle.standardOutput.write(Data("MailSearch is serving \(configuration.url(port: port)) (Ctrl-C to stop)\n".utf8))
        }
        var services: [any Service] = [app]
        // The accounts' syncs, and the accounts API's tries and starts (an account added from the
        // page syncs at once; with --no-sync it is only saved).
        // Passwords added from the page: the desktop's Secret Service, else secrets.enc (unlocked from the page).
        do {
            service.register(secrets: try StoreVault.open(dataDirectory: global.dataDirectory.url))
        } catch {
            logger.warning("no password store: \(error); accounts with a stored password cannot sync until it opens")
        }
        let supervisor = SyncSupervisor(service: service, syncing: sync)
        service.register(accountConnector: supervisor)
        services.append(SupervisedSync(supervisor: supervisor))
        if sync, case let count = try await service.mailbox.imapAccounts().count, count > 0 {
            logger.info("syncing \(count) IMAP account(s) in the background")
        }
        if send {
            services.append(BackgroundSending(sender: sender))
        }
        if backgroundEmbedding {
            services.append(BackgroundAttachments(service: service, logger: logger))
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            if started.value { throw CLIError("the server stopped: \(error)") }
            throw CLIError("cannot listen on \(configuration.url()): \(error)")
        }
        logger.info("stopped")
    }
}
