import ArgumentParser
import Foundation
import Synchronization

/// Stop requests for long commands: SIGINT, SIGTERM and SIGHUP, and the reader of stdout
/// going away (EPIPE, reported by `Terminal`; SIGPIPE itself is ignored process-wide).
/// The first request prints `message` and calls `onFirst` with the status a run stopped
/// by it exits with (or just sets the flag the command polls); a second signal exits at once.
final class SignalTrap: Sendable {
    /// The first stop request's signal, and when it came.
    private let caught = Mutex<(number: Int32, at: ContinuousClock.Instant)?>(nil)
    /// Kept for the life of the trap (a released source stops delivering).
    private let sources: Mutex<[(number: Int32, source: any DispatchSourceSignal)]>
    private let message: String
    private let onFirst: (@Sendable (ExitCode) -> Void)?

    init(message: String, onFirst: (@Sendable (ExitCode) -> Void)? = nil) {
        self.message = message
        self.onFirst = onFirst
        var trapped: [(number: Int32, source: any DispatchSourceSignal)] = []
        for number in [SIGINT, SIGTERM, SIGHUP] {
            // `nohup` sets SIGHUP to ignored for the process it starts: keep it so.
            if number == SIGHUP && Self.hangupIgnoredAtStart { continue }
            signal(number, SIG_IGN)
            trapped.append((number, DispatchSource.makeSignalSource(signal: number, queue: .global())))
        }
        sources = Mutex(trapped)
        // Handlers capture self, so they are set once every stored property is.
        sources.withLock { trapped in
            for (number, source) in trapped {
                source.setEventHandler { [self] in receive(number) }
                source.resume()
            }
        }
        Terminal.whenStdoutCloses { [weak self] in self?.receive(SIGPIPE) }
    }

    deinit { Terminal.whenStdoutCloses(nil) }

    private func receive(_ number: Int32) {
        let now = ContinuousClock.now
        let earlier = caught.withLock { caught in
            defer { caught = caught ?? (number, now) }
            return caught
        }
        switch Self.meaning(of: number, at: now, after: earlier) {
        case .stop:
            if number == SIGPIPE {
                Terminal.err("mediacache: standard output was closed; \(message)")
            } else {
                Terminal.err("\nmediacache: \(message) (press Ctrl-C again to quit at once)")
            }
            onFirst?(ExitStatus.interrupted(by: number))
        case .nothingMore:
            break
        case .quitNow:
            // Without exit()'s handlers: they tear down libraries (OpenSSL's state) under
            // threads still using them. What is on disk is consistent at any moment, as
            // after kill -9.
            _exit(ExitStatus.interrupted(by: number).rawValue)
        }
    }

    enum Meaning: Equatable {
        /// The first request: stop, saving progress.
        case stop
        /// The same request again, or stdout closing during the stop.
        case nothingMore
        /// A second request: quit at once.
        case quitNow
    }

    /// What `number`, arriving at `now`, asks for after the `earlier` request, if any.
    /// `timeout` signals the command and then its own process group, and a shell's Ctrl-C
    /// may come with a `kill` of the group: one request delivered twice within moments is
    /// no second press.
    static func meaning(
        of number: Int32, at now: ContinuousClock.Instant, after earlier: (number: Int32, at: ContinuousClock.Instant)?
    ) -> Meaning {
        guard let earlier else { return .stop }
        if number == SIGPIPE { return .nothingMore }
        let echo = earlier.number == number && earlier.at.duration(to: now) < .milliseconds(500)
        return echo ? .nothingMore : .quitNow
    }

    var isSet: Bool { caught.withLock { $0 != nil } }

    /// 128 + the first signal: 129 SIGHUP, 130 SIGINT, 141 stdout closed, 143 SIGTERM.
    var exitStatus: ExitCode {
        ExitStatus.interrupted(by: caught.withLock { $0?.number } ?? SIGINT)
    }

    /// Read once, before the first trap sets SIGHUP to ignored itself (so a second trap
    /// in the same process still handles it).
    private static let hangupIgnoredAtStart: Bool = {
        var current = sigaction()
        guard sigaction(SIGHUP, nil, &current) == 0 else { return false }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }()
}
