import Foundation
import ArgumentParser

/// SIGINT/SIGTERM for commands that stop between blocks and clean up (export, import,
/// verify): the first signal sets the flag, a second one exits at once.
final class InterruptFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var caught: Int32?
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                let first = lock.withLock {
                    defer { caught = caught ?? number }
                    return caught == nil
                }
                if first {
                    Terminal.err("\nmediacache: stopping and removing temporary files (press Ctrl-C again to quit at once)")
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
    var exitStatus: ExitCode { lock.withLock { caught == SIGTERM ? ExitStatus.interruptedByTERM : ExitStatus.interruptedByINT } }
}
