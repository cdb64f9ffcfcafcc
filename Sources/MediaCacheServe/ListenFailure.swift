import Foundation
import NIOCore

/// Why the server could not listen where asked, said as a person would: the socket
/// layer's own text names its internal calls ("bind(descriptor:ptr:bytes:)").
public enum ListenFailure {
    /// The reason, with what to do, when `error` is the socket's refusal of the address;
    /// nil for any other failure of the server (it is said as it is).
    public static func reason(_ error: any Error) -> String? {
        guard let error = error as? IOError else { return nil }
        switch error.errnoCode {
        case EADDRINUSE: return "the address is in use (another server listens there?); choose another port with --listen"
        case EACCES: return "permission denied (ports below 1024 need privileges); choose a port from 1024 with --listen"
        case EADDRNOTAVAIL: return "no interface of this machine has that address; check --listen"
        default: return nil
        }
    }
}
