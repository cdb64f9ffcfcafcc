import ArgumentParser
import Foundation

/// Stop requests for long commands: SIGINT, SIGTERM and SIGHUP, and the reader of stdout
/// going away (EPIPE, reported by `Terminal`; SIGPIPE itself is ignored process-wide).
/// The first request prints `message` and calls `onFirst` (or just sets the flag the
/// command polls); a second signal exits at once.
final class SignalTrap: @unchecked Sendable {
    private let lock = NSLock()
    private var caught: Int32?
    private var sources: [DispatchSourceSignal] = []
    private let message: String
    private let onFirst: (@Sendable () -> Void)?

    init(message: String, onFirst: (@Sendable () -> Void)? = nil) {
        self.message = message
        self.onFirst = onFirst
        for number in [SIGINT, SIGTERM, SIGHUP] {
            // `nohup` sets SIGHUP to ignored for the process it starts: keep it so.
            if number == SIGHUP && Self.hangupIgnoredAtStart { continue }
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in receive(number) }
            source.resume()
            sources.append(source)
        }
        Terminal.whenStdoutCloses { [weak self] in self?.receive(SIGPIPE) }
    }

    deinit { Terminal.whenStdoutCloses(nil) }

    private func receive(_ number: Int32) {
        let first = lock.withLock {
            defer { caught = caught ?? number }
            return caught == nil
        }
        if first {
            if number == SIGPIPE {
                Terminal.err("mediacache: standard output was closed; \(message)")
            } else {
                Terminal.err("\nmediacache: \(message) (press Ctrl-C again to quit at once)")
            }
            onFirst?()
        } else if number != SIGPIPE {
            exit(ExitStatus.interrupted(by: number).rawValue)
        }
    }

    var isSet: Bool { lock.withLock { caught != nil } }

    /// 128 + the first signal: 129 SIGHUP, 130 SIGINT, 141 stdout closed, 143 SIGTERM.
    var exitStatus: ExitCode {
        ExitStatus.interrupted(by: lock.withLock { caught } ?? SIGINT)
    }

    /// Read once, before the first trap sets SIGHUP to ignored itself (so a second trap
    /// in the same process still handles it).
    private static let hangupIgnoredAtStart: Bool = {
        var current = sigaction()
        guard sigaction(SIGHUP, nil, &current) == 0 else { return false }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }()
}
