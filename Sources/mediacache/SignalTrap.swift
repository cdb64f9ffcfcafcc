import ArgumentParser
import Foundation

/// SIGINT and SIGTERM for long commands: the first signal prints `message` and calls
/// `onFirst` (or just sets the flag the command polls); a second one exits at once.
final class SignalTrap: @unchecked Sendable {
    private let lock = NSLock()
    private var caught: Int32?
    private var sources: [DispatchSourceSignal] = []

    init(message: String, onFirst: (@Sendable () -> Void)? = nil) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                let first = lock.withLock {
                    defer { caught = caught ?? number }
                    return caught == nil
                }
                if first {
                    Terminal.err("\nmediacache: \(message) (press Ctrl-C again to quit at once)")
                    onFirst?()
                } else {
                    exit(number == SIGTERM ? 143 : 130)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    var isSet: Bool { lock.withLock { caught != nil } }

    /// 130 after SIGINT, 143 after SIGTERM.
    var exitStatus: ExitCode {
        lock.withLock { caught == SIGTERM ? ExitStatus.interruptedByTERM : ExitStatus.interruptedByINT }
    }
}
