import Foundation

/// The lines of a list file or stream, read a chunk at a time as entries are asked for:
/// a list of a million lines costs one buffer, not its size. An over-long line is
/// counted, not kept (the parser refuses it by its length).
final class FileListLines: ListLines {
    enum Input {
        case path(String)
        /// Read as it arrives; a stop ends it where it is.
        case stream(ListStream)
    }

    private let input: Input
    private let chunkSize: Int
    private var handle: FileHandle?
    private var opened = false
    /// Bytes read and not yet given out, from `start`.
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var number = 0
    private(set) var failure: String?
    private(set) var wasStopped = false

    init(_ input: Input, chunkSize: Int) {
        self.input = input
        self.chunkSize = chunkSize
    }

    deinit {
        try? handle?.close()
    }

    func next() -> ListLine? {
        if !opened { open() }
        // A line longer than any the parser takes: its first bytes (the indentation) and
        // its length are kept, the rest dropped as it is read; or a long comment, whose
        // line is what stands before it.
        var overlong: (kept: ArraySlice<UInt8>, length: Int, isComment: Bool)?
        // Bytes after `start` known to hold no line break: each byte is searched once.
        var searched = 0
        while true {
            if let newline = buffer[(start + searched)...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[start..<newline]
                start = newline + 1
                return self.line(line, overlong: overlong)
            }
            if atEnd {
                // A stream stopped midway: its last line may be cut, so it is not read.
                guard !wasStopped, start < buffer.count || overlong != nil else { return nil }
                defer { start = buffer.count }
                return line(buffer[start...], overlong: overlong)
            }
            if buffer.count - start > ListParser.maxLineLength {
                if overlong == nil {
                    let pending = buffer[start...]
                    let comment = ListParser.commentStart(pending)
                    overlong = comment < pending.endIndex
                        ? (Array(pending[..<comment])[...], 0, true) : (Array(ListLine.indentation(of: pending))[...], 0, false)
                }
                overlong!.length += buffer.count - start
                start = buffer.count
            }
            searched = buffer.count - start
            // No slice of the buffer is held here, so dropping its front copies nothing.
            read()
        }
    }

    func isQuiet() -> Bool {
        guard case .stream(let stream) = input, !atEnd, start == buffer.count else { return false }
        return stream.isSilent(forMilliseconds: 1000)
    }

    private func line(
        _ bytes: ArraySlice<UInt8>, overlong: (kept: ArraySlice<UInt8>, length: Int, isComment: Bool)?
    ) -> ListLine {
        number += 1
        var bytes = bytes
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        if let overlong, overlong.isComment {
            var line = ListLine(decoding: overlong.kept)
            line.length = overlong.length + bytes.count
            return line
        }
        if let overlong {
            return ListLine(
                text: String(decoding: overlong.kept, as: UTF8.self)[...], length: overlong.length + bytes.count,
                isOverlong: true)
        }
        if number == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return ListLine(decoding: bytes)
    }

    private func open() {
        opened = true
        guard case .path(let path) = input else { return }
        handle = FileHandle(forReadingAtPath: path)
        if handle == nil { stop(String(cString: strerror(errno))) }
    }

    /// Appends the next chunk, dropping what was given out before it.
    private func read() {
        guard !atEnd else { return }
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        switch input {
        case .path:
            guard let handle else { return stop("not open") }
            do {
                guard let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty else {
                    atEnd = true
                    return
                }
                buffer.append(contentsOf: chunk)
            } catch {
                stop(error.localizedDescription)
            }
        case .stream(let stream):
            switch stream.read(upTo: chunkSize) {
            case .bytes(let chunk): buffer.append(contentsOf: chunk)
            case .end: atEnd = true
            case .stopped:
                wasStopped = true
                atEnd = true
            case .failed(let reason): stop(reason)
            }
        }
    }

    private func stop(_ reason: String) {
        failure = reason
        atEnd = true
    }
}
