import Testing
@testable import MediaCacheKit

private let mpdURL = "https://cdn.example/vod/title/out.mpd"

private func manifest(_ text: String) throws -> DASHManifest {
    try DASHManifest(parsing: text, url: mpdURL)
}

private func uris(_ count: Int, stream: Int) -> [String] {
    (1...count).map { "https://cdn.example/vod/title/chunk-stream\(stream)-0000\($0).m4s" }
}

@Suite("DASH MPDs written by ffmpeg")
struct DASHFFmpegTests {
    @Test(arguments: [ffmpegSegmentList, ffmpegTimeline])
    func segmentListsAndTimelinesGiveTheSameResources(text: String) throws {
        let mpd = try manifest(text)
        #expect(mpd.url == mpdURL)
        #expect(mpd.duration == 6)
        let period = try #require(mpd.periods.first)
        #expect(mpd.periods.count == 1)
        #expect(period.id == "0")
        #expect(period.start == 0)
        #expect(period.duration == 6)
        #expect(period.adaptationSets.map(\.contentType) == [.video, .audio])
        let video = try #require(period.adaptationSets[0].representations.first)
        #expect(video.id == "0")
        #expect(video.bandwidth == 60349)
        #expect(video.width == 320 && video.height == 240)
        #expect(video.codecs == "avc1.f4000d")
        #expect(video.mimeType == "video/mp4")
        #expect(video.initialization == DASHResource(uri: "https://cdn.example/vod/title/init-stream0.m4s"))
        #expect(video.media.segments.map(\.uri) == uris(3, stream: 0))
        #expect(video.media.segments.map(\.number) == [1, 2, 3])
        #expect(video.media.segments.map(\.duration) == [2, 2, 2] as [Double?])
        #expect(video.media.segments.allSatisfy { $0.byteRange == nil })
        let audio = try #require(period.adaptationSets[1].representations.first)
        #expect(audio.mimeType == "audio/mp4")
        #expect(audio.codecs == "mp4a.40.2")
        #expect(audio.width == nil)
        #expect(audio.initialization?.uri == "https://cdn.example/vod/title/init-stream1.m4s")
        #expect(audio.media.segments.map(\.uri) == uris(4, stream: 1))
    }

    @Test func timelineTimesAndDurations() throws {
        let period = try #require(try manifest(ffmpegTimeline).periods.first)
        let video = period.adaptationSets[0].representations[0].media.segments
        #expect(video.map(\.time) == [0, 25600, 51200] as [Int64?])
        let audio = period.adaptationSets[1].representations[0].media.segments
        #expect(audio.map(\.time) == [0, 84992, 173_056, 262_144] as [Int64?])
        let durations: [Double?] = [84992, 88064, 89088, 2456].map { $0 / 44100 }
        #expect(audio.map(\.duration) == durations)
    }

    /// A template with @duration has ceil(6 s / 2 s) = 3 segments per representation, as
    /// the standard counts them. (ffmpeg wrote a fourth, 0.06 s audio segment that only a
    /// timeline or a list names: players that count do not ask for it either.)
    @Test func numberedTemplatesAreCountedFromThePeriodDuration() throws {
        let period = try #require(try manifest(ffmpegNumbered).periods.first)
        let video = period.adaptationSets[0].representations[0]
        #expect(video.media.segments.map(\.uri) == uris(3, stream: 0))
        #expect(video.media.segments.map(\.time) == [0, 2_000_000, 4_000_000] as [Int64?])
        let audio = period.adaptationSets[1].representations[0]
        #expect(audio.initialization?.uri == "https://cdn.example/vod/title/init-stream1.m4s")
        #expect(audio.media.segments.map(\.uri) == uris(3, stream: 1))
    }

    @Test func singleFileSegmentsAreInclusiveRangesMadeHalfOpen() throws {
        let period = try #require(try manifest(ffmpegSingleFile).periods.first)
        let video = period.adaptationSets[0].representations[0]
        let file = "https://cdn.example/vod/title/out-stream0.mp4"
        #expect(video.initialization == DASHResource(uri: file, byteRange: ByteRange(0, 815)))
        #expect(video.media.segments.map(\.uri) == [file, file, file])
        #expect(video.media.segments.map(\.byteRange) == [
            ByteRange(815, 16094), ByteRange(16094, 30856), ByteRange(30856, 45190),
        ])
        // The last range ends at the file's last byte: 45,190 bytes.
        let audio = period.adaptationSets[1].representations[0]
        #expect(audio.media.segments.last?.byteRange == ByteRange(53966, 54648))
        #expect(audio.media.segments.count == 4)
    }

    @Test func theDefaultSelectionIsTheVideoAndTheAudio() throws {
        let choice = DASHRenditionSelection.choose(from: try manifest(ffmpegTimeline))
        #expect(choice.representations.map(\.identity) == ["video-0", "audio-und-1"])
        #expect(choice.representations.map(\.kind) == [.video, .audio])
        #expect(choice.notes.isEmpty)
    }

    @Test func detectionSeesTheMPD() {
        #expect(PresentationDetection.format(contentType: nil, firstBytes: Array(ffmpegTimeline.utf8)) == .dash)
    }
}

// MPDs written by ffmpeg 5.1 (`ffmpeg -f lavfi -i testsrc=d=6:s=320x240 -f lavfi -i sine=d=6
// -c:v libx264 -c:a aac -g 25 -f dash -seg_duration 2 ...`), kept as written.

/// `-use_template 0 -use_timeline 0`: a SegmentList per representation.
private let ffmpegSegmentList = """
    <?xml version="1.0" encoding="utf-8"?>
    <MPD xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    	xmlns="urn:mpeg:dash:schema:mpd:2011"
    	xmlns:xlink="http://www.w3.org/1999/xlink"
    	xsi:schemaLocation="urn:mpeg:DASH:schema:MPD:2011 http://standards.iso.org/ittf/PubliclyAvailableStandards/MPEG-DASH_schema_files/DASH-MPD.xsd"
    	profiles="urn:mpeg:dash:profile:isoff-live:2011"
    	type="static"
    	mediaPresentationDuration="PT6.0S"
    	maxSegmentDuration="PT2.0S"
    	minBufferTime="PT4.0S">
    	<ProgramInformation>
    	</ProgramInformation>
    	<ServiceDescription id="0">
    	</ServiceDescription>
    	<Period id="0" start="PT0.0S">
    		<AdaptationSet id="0" contentType="video" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true" frameRate="25/1" maxWidth="320" maxHeight="240" par="4:3">
    			<Representation id="0" mimeType="video/mp4" codecs="avc1.f4000d" bandwidth="60349" width="320" height="240" sar="1:1">
    				<SegmentList timescale="1000000" duration="2000000" startNumber="1">
    					<Initialization sourceURL="init-stream0.m4s" />
    					<SegmentURL media="chunk-stream0-00001.m4s" />
    					<SegmentURL media="chunk-stream0-00002.m4s" />
    					<SegmentURL media="chunk-stream0-00003.m4s" />
    				</SegmentList>
    			</Representation>
    		</AdaptationSet>
    		<AdaptationSet id="1" contentType="audio" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true">
    			<Representation id="1" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="69000" audioSamplingRate="44100">
    				<AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="1" />
    				<SegmentList timescale="1000000" duration="2000000" startNumber="1">
    					<Initialization sourceURL="init-stream1.m4s" />
    					<SegmentURL media="chunk-stream1-00001.m4s" />
    					<SegmentURL media="chunk-stream1-00002.m4s" />
    					<SegmentURL media="chunk-stream1-00003.m4s" />
    					<SegmentURL media="chunk-stream1-00004.m4s" />
    				</SegmentList>
    			</Representation>
    		</AdaptationSet>
    	</Period>
    </MPD>
    """

/// `-use_template 1 -use_timeline 1` (the default): templates with timelines.
private let ffmpegTimeline = """
    <?xml version="1.0" encoding="utf-8"?>
    <MPD xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    	xmlns="urn:mpeg:dash:schema:mpd:2011"
    	xmlns:xlink="http://www.w3.org/1999/xlink"
    	xsi:schemaLocation="urn:mpeg:DASH:schema:MPD:2011 http://standards.iso.org/ittf/PubliclyAvailableStandards/MPEG-DASH_schema_files/DASH-MPD.xsd"
    	profiles="urn:mpeg:dash:profile:isoff-live:2011"
    	type="static"
    	mediaPresentationDuration="PT6.0S"
    	maxSegmentDuration="PT2.0S"
    	minBufferTime="PT4.0S">
    	<ProgramInformation>
    	</ProgramInformation>
    	<ServiceDescription id="0">
    	</ServiceDescription>
    	<Period id="0" start="PT0.0S">
    		<AdaptationSet id="0" contentType="video" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true" frameRate="25/1" maxWidth="320" maxHeight="240" par="4:3">
    			<Representation id="0" mimeType="video/mp4" codecs="avc1.f4000d" bandwidth="60349" width="320" height="240" sar="1:1">
    				<SegmentTemplate timescale="12800" initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1">
    					<SegmentTimeline>
    						<S t="0" d="25600" r="2" />
    					</SegmentTimeline>
    				</SegmentTemplate>
    			</Representation>
    		</AdaptationSet>
    		<AdaptationSet id="1" contentType="audio" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true">
    			<Representation id="1" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="69000" audioSamplingRate="44100">
    				<AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="1" />
    				<SegmentTemplate timescale="44100" initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1">
    					<SegmentTimeline>
    						<S t="0" d="84992" />
    						<S d="88064" />
    						<S d="89088" />
    						<S d="2456" />
    					</SegmentTimeline>
    				</SegmentTemplate>
    			</Representation>
    		</AdaptationSet>
    	</Period>
    </MPD>
    """

/// `-use_template 1 -use_timeline 0`: number-based templates counted from the duration.
private let ffmpegNumbered = """
    <?xml version="1.0" encoding="utf-8"?>
    <MPD xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    	xmlns="urn:mpeg:dash:schema:mpd:2011"
    	xmlns:xlink="http://www.w3.org/1999/xlink"
    	xsi:schemaLocation="urn:mpeg:DASH:schema:MPD:2011 http://standards.iso.org/ittf/PubliclyAvailableStandards/MPEG-DASH_schema_files/DASH-MPD.xsd"
    	profiles="urn:mpeg:dash:profile:isoff-live:2011"
    	type="static"
    	mediaPresentationDuration="PT6.0S"
    	maxSegmentDuration="PT2.0S"
    	minBufferTime="PT4.0S">
    	<ProgramInformation>
    	</ProgramInformation>
    	<ServiceDescription id="0">
    	</ServiceDescription>
    	<Period id="0" start="PT0.0S">
    		<AdaptationSet id="0" contentType="video" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true" frameRate="25/1" maxWidth="320" maxHeight="240" par="4:3">
    			<Representation id="0" mimeType="video/mp4" codecs="avc1.f4000d" bandwidth="60349" width="320" height="240" sar="1:1">
    				<SegmentTemplate timescale="1000000" duration="2000000" initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1">
    				</SegmentTemplate>
    			</Representation>
    		</AdaptationSet>
    		<AdaptationSet id="1" contentType="audio" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true">
    			<Representation id="1" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="69000" audioSamplingRate="44100">
    				<AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="1" />
    				<SegmentTemplate timescale="1000000" duration="2000000" initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1">
    				</SegmentTemplate>
    			</Representation>
    		</AdaptationSet>
    	</Period>
    </MPD>
    """

/// `-single_file 1`: one file per representation, segments as byte ranges of it.
private let ffmpegSingleFile = """
    <?xml version="1.0" encoding="utf-8"?>
    <MPD xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    	xmlns="urn:mpeg:dash:schema:mpd:2011"
    	xmlns:xlink="http://www.w3.org/1999/xlink"
    	xsi:schemaLocation="urn:mpeg:DASH:schema:MPD:2011 http://standards.iso.org/ittf/PubliclyAvailableStandards/MPEG-DASH_schema_files/DASH-MPD.xsd"
    	profiles="urn:mpeg:dash:profile:isoff-live:2011"
    	type="static"
    	mediaPresentationDuration="PT6.0S"
    	maxSegmentDuration="PT2.0S"
    	minBufferTime="PT4.0S">
    	<ProgramInformation>
    	</ProgramInformation>
    	<ServiceDescription id="0">
    	</ServiceDescription>
    	<Period id="0" start="PT0.0S">
    		<AdaptationSet id="0" contentType="video" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true" frameRate="25/1" maxWidth="320" maxHeight="240" par="4:3">
    			<Representation id="0" mimeType="video/mp4" codecs="avc1.f4000d" bandwidth="60253" width="320" height="240" sar="1:1">
    				<BaseURL>out-stream0.mp4</BaseURL>
    				<SegmentList timescale="1000000" duration="2000000" startNumber="1">
    					<Initialization range="0-814" />
    					<SegmentURL mediaRange="815-16093" indexRange="815-866" />
    					<SegmentURL mediaRange="16094-30855" indexRange="16094-16145" />
    					<SegmentURL mediaRange="30856-45189" indexRange="30856-30907" />
    				</SegmentList>
    			</Representation>
    		</AdaptationSet>
    		<AdaptationSet id="1" contentType="audio" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true">
    			<Representation id="1" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="69000" audioSamplingRate="44100">
    				<AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="1" />
    				<BaseURL>out-stream1.mp4</BaseURL>
    				<SegmentList timescale="1000000" duration="2000000" startNumber="1">
    					<Initialization range="0-764" />
    					<SegmentURL mediaRange="765-18203" indexRange="765-816" />
    					<SegmentURL mediaRange="18204-36008" indexRange="18204-18255" />
    					<SegmentURL mediaRange="36009-53965" indexRange="36009-36060" />
    					<SegmentURL mediaRange="53966-54647" indexRange="53966-54017" />
    				</SegmentList>
    			</Representation>
    		</AdaptationSet>
    	</Period>
    </MPD>
    """
