// demo-origin --root DIR [--port N]
//
// Serves every regular file under DIR (URL path = relative path) with TestOrigin,
// prints "listening on http://127.0.0.1:PORT" and runs until SIGTERM/SIGINT.

import Foundation
import Glibc
import TestOrigin

let usage = "usage: demo-origin --root DIR [--port N]"

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("demo-origin: \(message)\n".utf8))
    exit(status)
}

struct Options {
    var root: String
    var port: Int
}

/// Accepts `--root DIR`, `--root=DIR`, `--port N`, `--port=N`, `-h`/`--help`.
func parseOptions(_ arguments: [String]) -> Options {
    var root: String?
    var port = 0
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
        var name = argument
        var value: String?
        if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
            name = String(argument[..<equals])
            value = String(argument[argument.index(after: equals)...])
        }
        switch name {
        case "-h", "--help":
            print(usage)
            exit(0)
        case "--root", "--port":
            guard let given = value ?? remaining.popFirst() else { fail("\(name) needs a value\n\(usage)") }
            if name == "--root" {
                root = given
            } else {
                guard let number = Int(given), (0...65535).contains(number) else { fail("invalid port: \(given)") }
                port = number
            }
        default:
            fail("unexpected argument: \(argument)\n\(usage)")
        }
    }
    guard let root else { fail("--root is required\n\(usage)") }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
        fail("not a directory: \(root)")
    }
    return Options(root: root, port: port)
}

func contentType(for path: String) -> String {
    switch (path as NSString).pathExtension.lowercased() {
    case "mp4": "video/mp4"
    case "m4a": "audio/mp4"
    case "mov": "video/quicktime"
    case "mp3": "audio/mpeg"
    case "webm": "video/webm"
    case "mkv": "video/x-matroska"
    case "jpg", "jpeg": "image/jpeg"
    case "png": "image/png"
    default: "application/octet-stream"
    }
}

/// Relative paths of the regular files under `root` (symlinks followed).
func regularFiles(under root: String) -> [String] {
    let entries = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
    return entries.filter { relative in
        var info = stat()
        return stat(root + "/" + relative, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }.sorted()
}

func main() -> Never {
    let options = parseOptions(Array(CommandLine.arguments.dropFirst()))

    // Block the signals before any thread exists so every thread inherits the mask
    // and sigwait below is the only place they are delivered.
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGTERM)
    sigaddset(&signals, SIGINT)
    pthread_sigmask(SIG_BLOCK, &signals, nil)

    let origin: TestOrigin
    do {
        origin = try TestOrigin(port: options.port)
    } catch {
        fail("\(error)", status: 1)
    }
    let root = URL(fileURLWithPath: options.root).standardizedFileURL.path
    for relative in regularFiles(under: root) {
        origin.serve("/" + relative, Resource(file: root + "/" + relative, contentType: contentType(for: relative)))
    }

    // FileHandle writes straight to fd 1, so the line is visible at once even through a pipe.
    FileHandle.standardOutput.write(Data("listening on \(origin.baseURL)\n".utf8))

    var received: Int32 = 0
    sigwait(&signals, &received)
    origin.stop()
    exit(0)
}

main()
