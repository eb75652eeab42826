import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

/// Runs `app` until SIGTERM or SIGINT, then shuts it down gracefully (requests in flight finish), saying so in the
/// log the moment the signal arrives and again when the server has stopped (issue 35: nothing was logged).
public func runUntilStopped(_ app: some ApplicationProtocol, logger: Logger) async throws {
    // Services shut down in reverse order: the announcement comes first, then the application drains.
    let group = ServiceGroup(configuration: .init(services: [app, ShutdownLog(logger: logger)],
                                                  gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
    logger.notice("stopped")
}

/// Says in the log when a stop signal starts the graceful shutdown.
struct ShutdownLog: Service {
    let logger: Logger

    func run() async throws {
        // Returns when the service group begins its graceful shutdown (a signal); throws when cancelled instead.
        try await gracefulShutdown()
        logger.notice("shutting down: a stop signal (SIGTERM or SIGINT) arrived; requests in flight finish, then the server exits")
    }
}
