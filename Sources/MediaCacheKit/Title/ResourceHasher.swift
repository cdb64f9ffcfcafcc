import Foundation

/// Hashes a title's fetched files off the loop thread: each is read back (from the page
/// cache: it was just written) and its SHA-256 handed to the loop. Hashing a body as it
/// arrives would cost the loop thread, which also receives and writes for every
/// transfer, a sixth of a segment's time; here it runs on the other core.
final class ResourceHasher: Sendable {
    private let queue = DispatchQueue(label: "mediacache.title-hasher", qos: .utility)

    /// The SHA-256 of the first `size` bytes of the file at `path`, on `loop`.
    func hash(
        _ path: String, size: Int64, on loop: TransferLoop,
        completion: @escaping @Sendable (Result<String, SystemError>) -> Void
    ) {
        queue.async {
            LoopThreads.preconditionOff("hashing a title's file")
            let result = Result { () throws(SystemError) -> String in
                let file = try DataFile(path: path, mode: .readOnly)
                let actual = try file.size()
                guard actual >= size else { throw SystemError("read", path: path, code: EIO) }
                do {
                    return try FileDigester.digest(file, length: size, algorithms: [.sha256])[.sha256] ?? ""
                } catch let error as SystemError {
                    throw error
                } catch {
                    throw SystemError("read", path: path, code: EIO)
                }
            }
            loop.post { completion(result) }
        }
    }
}
