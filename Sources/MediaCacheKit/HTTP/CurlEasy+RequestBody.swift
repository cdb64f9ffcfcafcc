import CCurl
import CShims

extension CurlEasy {
    /// Sets the request method and, for PUT and POST, the callbacks that stream the body
    /// from a `RequestBodySource`, which it returns for the handle to keep alive.
    func apply(_ method: HTTPMethod, body: HTTPRequestBody?) -> RequestBodySource? {
        switch method {
        case .get:
            return nil
        case .head:
            setLong(CURLOPT_NOBODY, 1)
            return nil
        case .delete:
            setString(CURLOPT_CUSTOMREQUEST, "DELETE")
            return nil
        case .put, .post:
            let body = body ?? .bytes([])
            if method == .put {
                setLong(CURLOPT_UPLOAD, 1)
                CShims_easy_setopt_off_t(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(body.count))
            } else {
                setLong(CURLOPT_POST, 1)
                CShims_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            }
            let source = RequestBodySource(body)
            let context = Unmanaged.passUnretained(source).toOpaque()
            CShims_easy_setopt_pointer(handle, CURLOPT_READDATA, context)
            CShims_easy_setopt_data_callback(handle, CURLOPT_READFUNCTION, curlReadCallback)
            CShims_easy_setopt_pointer(handle, CURLOPT_SEEKDATA, context)
            CShims_easy_setopt_seek_callback(handle, CURLOPT_SEEKFUNCTION, curlSeekCallback)
            // libcurl's `Expect: 100-continue` stays: S3 stores answer it at once, and a
            // refused request then costs no body. (Removing it with an empty `Expect:`
            // line would not do anyway: libcurl 7.88 signs that line, which is not sent.)
            return source
        }
    }
}

/// Streams a request body to libcurl block by block: bytes from memory, or a range of
/// a file opened on first read. Used on the thread that runs the transfer only.
final class RequestBodySource {
    private let body: HTTPRequestBody
    private var file: DataFile?
    /// Bytes of the body handed to libcurl so far.
    private var position: Int64 = 0
    /// Why the body could not be read; the transfer then fails with this message.
    private(set) var failure: String?

    init(_ body: HTTPRequestBody) {
        self.body = body
    }

    /// Fills `buffer` with the next bytes; 0 at the end, nil when reading failed.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let wanted = Int(min(Int64(buffer.count), body.count - position))
        guard wanted > 0 else { return 0 }
        switch body {
        case .bytes(let bytes):
            let start = Int(position)
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<start + wanted]))
            }
            position += Int64(wanted)
            return wanted
        case .file(let path, let range):
            do {
                if file == nil { file = try DataFile(path: path, mode: .readOnly) }
                let target = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted])
                let count = try file!.read(into: target, at: range.start + position)
                guard count > 0 else {
                    failure = "reading \(path): the file is shorter than the \(range.count) bytes to upload from \(range.start)"
                    return nil
                }
                position += Int64(count)
                return count
            } catch {
                failure = "reading \(path): \(error)"
                return nil
            }
        }
    }

    /// Moves to `offset` from the body's start, for libcurl to send it again.
    func seek(to offset: Int64) -> Bool {
        guard offset >= 0, offset <= body.count else { return false }
        position = offset
        return true
    }
}

private func curlReadCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let data, let context else { return Int(CURL_READFUNC_ABORT) }
    let source = Unmanaged<RequestBodySource>.fromOpaque(context).takeUnretainedValue()
    return source.read(into: UnsafeMutableRawBufferPointer(start: data, count: size * count)) ?? Int(CURL_READFUNC_ABORT)
}

private func curlSeekCallback(_ context: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    guard let context, origin == SEEK_SET else { return CURL_SEEKFUNC_CANTSEEK }
    let source = Unmanaged<RequestBodySource>.fromOpaque(context).takeUnretainedValue()
    return source.seek(to: Int64(offset)) ? CURL_SEEKFUNC_OK : CURL_SEEKFUNC_FAIL
}
