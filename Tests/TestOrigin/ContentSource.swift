import Glibc

/// Random access to a resource body for the duration of one response.
///
/// File bodies are opened once per response and read with `pread`, so huge files are
/// never loaded whole and a response keeps reading the file it started with.
final class ContentSource {
    private enum Storage {
        case bytes([UInt8])
        case file(Int32)
    }

    let length: Int
    private let storage: Storage

    /// Returns nil when a file body cannot be opened or is not a regular file.
    init?(_ body: Resource.Body) {
        switch body {
        case .bytes(let bytes):
            storage = .bytes(bytes)
            length = bytes.count
        case .file(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                close(fd)
                return nil
            }
            storage = .file(fd)
            length = Int(info.st_size)
        }
    }

    deinit {
        if case .file(let fd) = storage { close(fd) }
    }

    /// Copies up to `buffer.count` bytes starting at `offset`; returns the count copied
    /// (0 at end of content or when a file shrank underneath us).
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard offset >= 0, offset < length, buffer.count > 0, let base = buffer.baseAddress else { return 0 }
        switch storage {
        case .bytes(let bytes):
            let count = min(buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { source in
                base.copyMemory(from: source.baseAddress! + offset, byteCount: count)
            }
            return count
        case .file(let fd):
            while true {
                let count = pread(fd, base, min(buffer.count, length - offset), off_t(offset))
                if count < 0 && errno == EINTR { continue }
                return max(0, count)
            }
        }
    }

    /// Reads `count` bytes at `offset` into a new array (short if the content ends first).
    func bytes(at offset: Int, count: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: max(0, min(count, length - offset)))
        var filled = 0
        result.withUnsafeMutableBytes { buffer in
            while filled < buffer.count {
                let got = read(at: offset + filled, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                if got == 0 { break }
                filled += got
            }
        }
        return Array(result[0..<filled])
    }
}
