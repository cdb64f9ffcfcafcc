#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: what was being done, on which path, and errno.
public struct SystemError: Error, CustomStringConvertible, Equatable {
    public let operation: String
    public let path: String?
    public let code: Int32

    public init(_ operation: String, path: String? = nil, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// Out of file descriptors (this process's limit or the system's): a moment's
    /// pressure while other files finish, not a fault of this file.
    public var isDescriptorShortage: Bool { code == EMFILE || code == ENFILE }

    public var description: String {
        var reason = String(cString: strerror(code))
        if code == ENOSPC { reason += " (the disk is full)" }
        // What O_NOFOLLOW answers for a link where a file should be.
        if code == ELOOP { reason = "it is a symbolic link, which mediacache never follows inside the cache" }
        if let path { return "\(operation) \(path): \(reason)" }
        return "\(operation): \(reason)"
    }
}

/// Runs a system call, retrying on EINTR, and throws `SystemError` on -1. `path` is
/// evaluated only for the error: every read and write of a data file passes here.
@discardableResult
func retryingEINTR<T: BinaryInteger>(
    _ operation: String, path: @autoclosure () -> String? = nil, _ call: () -> T
) throws(SystemError) -> T {
    while true {
        let result = call()
        if result != -1 { return result }
        if errno == EINTR { continue }
        throw SystemError(operation, path: path())
    }
}
