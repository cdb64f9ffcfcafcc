import ArgumentParser
import Foundation
import Synchronization

/// Stop requests for long commands: SIGINT, SIGTERM and SIGHUP, and the reader of stdout
/// going away (EPIPE, reported by `Terminal`; SIGPIPE itself is ignored process-wide).
/// The first request prints `message` and calls `onFirst` with the status a run stopped
/// by it exits with (or just sets the flag the command polls); a second signal exits at once.
final class SignalTrap: Sendable {
    /// The first stop request's signal.
    private let caught = Mutex<Int32?>(nil)
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
        let first = caught.withLock { caught in
            defer { caught = caught ?? number }
            return caught == nil
        }
        if first {
            if number == SIGPIPE {
                Terminal.err("mediacache: standard output was closed; \(message)")
            } else {
                Terminal.err("\nmediacache: \(message) (press Ctrl-C again to quit at once)")
            }
            onFirst?(ExitStatus.interrupted(by: number))
        } else if number != SIGPIPE {
            exit(ExitStatus.interrupted(by: number).rawValue)
        }
    }

    var isSet: Bool { caught.withLock { $0 != nil } }

    /// 128 + the first signal: 129 SIGHUP, 130 SIGINT, 141 stdout closed, 143 SIGTERM.
    var exitStatus: ExitCode {
        ExitStatus.interrupted(by: caught.withLock { $0 } ?? SIGINT)
    }

    /// Read once, before the first trap sets SIGHUP to ignored itself (so a second trap
    /// in the same process still handles it).
    private static let hangupIgnoredAtStart: Bool = {
        var current = sigaction()
        guard sigaction(SIGHUP, nil, &current) == 0 else { return false }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }()
}
