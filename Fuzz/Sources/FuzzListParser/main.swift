import Foundation
import FuzzDriver
@testable import MediaCacheKit

/// Any bytes as a list file: parsing never traps, and what it accepts is safe to use.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let parsed = ListParser.parse(bytes, file: "fuzz.txt")
    var identities: Set<String> = []
    for entry in parsed.entries {
        precondition(!entry.urls.isEmpty, "entry without URL")
        for url in entry.urls { precondition(URLParts(url) != nil, "accepted a URL that cannot be fetched: \(url)") }
        precondition(identities.insert(entry.identity).inserted, "duplicate identity kept")
        _ = entry.displayName
        for text in entry.urls + entry.headers + [entry.outName].compactMap({ $0 }) {
            precondition(!text.unicodeScalars.contains { $0 != "\t" && $0.properties.generalCategory == .control },
                "control character accepted in \(text.debugDescription)")
        }
        if let name = entry.outName, let ext = URLParts.shortExtension(of: name) {
            precondition(!ext.contains("/") && !ext.contains("."), "unsafe extension \(ext)")
        }
    }
    let lines = bytes.filter { $0 == UInt8(ascii: "\n") }.count + 1
    for diagnostic in parsed.diagnostics {
        precondition((1...lines).contains(diagnostic.line), "diagnostic on line \(diagnostic.line) of \(lines)")
        // Messages quote the list: never a terminal escape, never megabytes.
        precondition(diagnostic.message.count <= 301, "message of \(diagnostic.message.count) characters")
        precondition(!diagnostic.message.unicodeScalars.contains { $0.properties.generalCategory == .control },
            "control character in \(diagnostic.message.debugDescription)")
    }
    return 0
}

exit(FuzzDriver_run(CommandLine.argc, CommandLine.unsafeArgv, fuzzOne))
