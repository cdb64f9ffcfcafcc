import Foundation
import FuzzDriver
@testable import MediaCacheKit

/// Any bytes as an MPD, then the default and limited selections: reading never traps and
/// stays bounded, what it accepts is safe to fetch, and what it refuses is said in a
/// short, printable message.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let url = "https://cdn.example/vod/title/manifest.mpd?token=abc&session=a%20b"
    do {
        checkManifest(try DASHManifest(parsing: bytes, url: url))
    } catch {
        checkMessage(error.message)
    }
    _ = PresentationDetection.format(contentType: nil, firstBytes: bytes)
    return 0
}

func checkManifest(_ manifest: DASHManifest) {
    var total = 0
    precondition(!manifest.periods.isEmpty, "an MPD without Periods accepted")
    for period in manifest.periods {
        precondition(period.start.isFinite && period.start >= 0, "Period start \(period.start)")
        if let duration = period.duration { precondition(duration.isFinite && duration >= 0, "Period duration") }
        for set in period.adaptationSets {
            precondition(!set.representations.isEmpty, "an AdaptationSet without Representations accepted")
            for representation in set.representations {
                precondition(representation.bandwidth >= 0, "negative bandwidth")
                if let initialization = representation.initialization {
                    checkResource(initialization.uri, initialization.byteRange)
                }
                switch representation.media {
                case .singleFile(let uri):
                    checkFetchable(uri)
                    total += 1
                case .segments(let segments):
                    precondition(!segments.isEmpty, "a Representation without segments accepted")
                    total += segments.count
                    var previous: Int?
                    // Foundation checks each URI in tens of microseconds under ASan: a
                    // million of them would take the input past the timeout. Past 10,000
                    // a sample is checked (a template's URIs differ only in digits).
                    let stride = segments.count <= 10_000 ? 1 : 97
                    for (index, segment) in segments.enumerated() {
                        if index % stride == 0 || index == segments.count - 1 {
                            checkResource(segment.uri, segment.byteRange)
                        }
                        if let duration = segment.duration {
                            precondition(duration.isFinite && duration >= 0, "duration \(duration)")
                        }
                        if let previous { precondition(segment.number == previous + 1, "numbers not consecutive") }
                        previous = segment.number
                    }
                }
            }
        }
    }
    precondition(total <= HLSMediaPlaylist.maxSegments, "\(total) segments accepted")
    for options in [
        RenditionSelectionOptions(), RenditionSelectionOptions(maxHeight: 480, allVariants: true),
        RenditionSelectionOptions(maxBandwidth: 1, audioLanguages: .matching(["en"])),
        RenditionSelectionOptions(audioLanguages: .all),
    ] {
        let choice = DASHRenditionSelection.choose(from: manifest, options: options)
        var identities: Set<String> = []
        for chosen in choice.representations {
            precondition(manifest.periods.indices.contains(chosen.period), "period \(chosen.period) out of bounds")
            precondition(identities.insert(chosen.identity).inserted, "identity \(chosen.identity) twice")
            precondition(chosen.identity.utf8.count <= RenditionIdentity.maxLength, "identity too long")
            precondition(
                chosen.identity.utf8.allSatisfy {
                    (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                        || [UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "%"),
                            UInt8(ascii: "~")].contains($0)
                }, "identity \(chosen.identity.debugDescription) is no safe file name")
        }
        for note in choice.notes { checkMessage(note) }
    }
}

func checkResource(_ uri: String, _ range: ByteRange?) {
    checkFetchable(uri)
    if let range { precondition(range.start >= 0 && range.start < range.end, "bad byte range \(range)") }
}

/// An absolute http(s) URL without control characters: what the engine may fetch.
func checkFetchable(_ uri: String) {
    precondition(URLParts.problem(with: uri) == nil, "accepted a URI that cannot be fetched: \(uri.debugDescription)")
    precondition(URLParts(uri) != nil, "accepted a URI without host: \(uri.debugDescription)")
}

/// Messages quote the MPD: never a terminal escape, never megabytes.
func checkMessage(_ message: String) {
    precondition(message.count <= 1500, "message of \(message.count) characters")
    precondition(
        !message.unicodeScalars.contains { $0.properties.generalCategory == .control },
        "control character in \(message.debugDescription)")
}

exit(FuzzDriver_run(CommandLine.argc, CommandLine.unsafeArgv, fuzzOne))
