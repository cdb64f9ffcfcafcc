import Foundation
import FuzzDriver
@testable import MediaCacheKit

/// Any bytes as a media playlist and as a master playlist: reading never traps, what it
/// accepts is safe to fetch, and what it refuses is said in a short, printable message.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // A query for QUERYPARAM, a master's variables for IMPORT.
    let url = "https://cdn.example/vod/title/index.m3u8?token=abc&session=a%20b"
    do {
        checkMedia(try HLSMediaPlaylist(parsing: bytes, url: url, imports: HLSVariables(["cdn": "https://media.example"])))
    } catch {
        checkMessage(error.message)
    }
    do {
        checkMaster(try HLSMasterPlaylist(parsing: bytes, url: url))
    } catch {
        checkMessage(error.message)
    }
    _ = PresentationDetection.format(contentType: nil, firstBytes: bytes)
    return 0
}

func checkMedia(_ playlist: HLSMediaPlaylist) {
    precondition(!playlist.segments.isEmpty, "a playlist without segments accepted")
    var previous: Int?
    for segment in playlist.segments {
        checkFetchable(segment.uri)
        if let range = segment.byteRange {
            precondition(range.start >= 0 && range.start < range.end, "bad byte range \(range)")
        }
        if let index = segment.initSection {
            precondition(playlist.initSections.indices.contains(index), "init section \(index) out of bounds")
        }
        if let key = segment.key { checkFetchable(key.uri) }
        precondition(segment.initializationVector.map { $0.count == 16 } ?? true, "IV not 16 bytes")
        precondition(segment.duration.isFinite && segment.duration >= 0, "duration \(segment.duration)")
        if let previous { precondition(segment.mediaSequence == previous + 1, "media sequence not consecutive") }
        previous = segment.mediaSequence
    }
    for section in playlist.initSections {
        checkFetchable(section.uri)
        if let range = section.byteRange { precondition(range.start >= 0 && range.start < range.end, "bad map range") }
    }
}

func checkMaster(_ master: HLSMasterPlaylist) {
    for variant in master.variants { checkFetchable(variant.uri) }
    for uri in master.renditions.compactMap(\.uri) { checkFetchable(uri) }
    for key in master.sessionKeys { checkFetchable(key.uri) }
    for options in [
        RenditionSelectionOptions(), RenditionSelectionOptions(maxHeight: 480, allVariants: true),
        RenditionSelectionOptions(maxBandwidth: 1, audioLanguages: .matching(["en"])),
        RenditionSelectionOptions(audioLanguages: .all),
    ] {
        let choice = RenditionSelection.choose(from: master, options: options)
        precondition(choice.renditions.contains { $0.kind == .variant }, "no variant chosen")
        var identities: Set<String> = []
        for rendition in choice.renditions {
            checkFetchable(rendition.uri)
            precondition(identities.insert(rendition.identity).inserted, "identity \(rendition.identity) twice")
            precondition(rendition.identity.utf8.count <= RenditionIdentity.maxLength, "identity too long")
            precondition(
                rendition.identity.utf8.allSatisfy {
                    (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                        || [UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "%"),
                            UInt8(ascii: "~")].contains($0)
                }, "identity \(rendition.identity.debugDescription) is no safe file name")
        }
        for note in choice.notes { checkMessage(note) }
    }
}

/// An absolute http(s) URL without control characters: what the engine may fetch.
func checkFetchable(_ uri: String) {
    precondition(URLParts.problem(with: uri) == nil, "accepted a URI that cannot be fetched: \(uri.debugDescription)")
    precondition(URLParts(uri) != nil, "accepted a URI without host: \(uri.debugDescription)")
}

/// Messages quote the playlist: never a terminal escape, never megabytes.
func checkMessage(_ message: String) {
    precondition(message.count <= 1500, "message of \(message.count) characters")
    precondition(
        !message.unicodeScalars.contains { $0.properties.generalCategory == .control },
        "control character in \(message.debugDescription)")
}

exit(FuzzDriver_run(CommandLine.argc, CommandLine.unsafeArgv, fuzzOne))
