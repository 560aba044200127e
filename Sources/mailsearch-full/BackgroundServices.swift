import IMAPSync
import ServiceLifecycle

// The long-running work of `serve` and `sync --watch`, as services of the process's ServiceGroup.

/// The sync engines of `serve` and `sync --watch`, as a service of the process's ServiceGroup:
/// each account watched in a task of its own, all cancelled on graceful shutdown.
struct BackgroundSync: Service {
    let engines: [IMAPSyncEngine]

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for engine in engines {
                    group.addTask { await engine.watch() }
                }
            }
        }
    }
}

/// `serve`'s send queue: `MessageSender.run` until shutdown.
struct BackgroundSending: Service {
    let sender: MessageSender

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await sender.run()
        }
    }
}
