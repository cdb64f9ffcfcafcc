import Foundation

/// A small tmpfs mounted over a test's directory, to run out of space or turn read-only
/// for real. Needs root and a kernel that lets this process mount (CI runs as root);
/// tests that use it are skipped where that is not so.
final class TmpfsMount {
    let path: String
    private var mounted = false

    /// Whether mounting works here (checked once, on a throwaway directory).
    static let available: Bool = {
        guard geteuid() == 0 else { return false }
        let probe = NSTemporaryDirectory() + "mediacache-tmpfs-probe-" + UUID().uuidString.prefix(8)
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard (try? run(["/bin/mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", probe])) == 0 else { return false }
        _ = try? run(["/bin/umount", probe])
        return true
    }()

    init(at path: String, size: String) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard try Self.run(["/bin/mount", "-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", path]) == 0 else {
            throw MountFailed(description: "mount tmpfs on \(path) failed")
        }
        mounted = true
    }

    /// `mount -o remount,OPTIONS`: a new size, or `ro` / `rw`.
    func remount(_ options: String) throws {
        guard try Self.run(["/bin/mount", "-o", "remount,\(options)", path]) == 0 else {
            throw MountFailed(description: "remount \(options) of \(path) failed")
        }
    }

    func unmount() {
        guard mounted else { return }
        mounted = (try? Self.run(["/bin/umount", path])) != 0
        if mounted { _ = try? Self.run(["/bin/umount", "-l", path]) }
        mounted = false
    }

    deinit { unmount() }

    /// Fills the file system to the last byte with a file named `name`.
    func fill(_ name: String) throws {
        _ = try Self.run(["/bin/dd", "if=/dev/zero", "of=\(path)/\(name)", "bs=4k", "status=none"])
    }

    struct MountFailed: Error, CustomStringConvertible { var description: String }

    @discardableResult
    static func run(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
