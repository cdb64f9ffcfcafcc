#!/usr/bin/env python3
"""Regenerates the committed seed corpus (run from Fuzz/Seeds; needs ffmpeg and zstd).

mp4/     tiny moov-at-end, faststart and fragmented files from ffmpeg, plus synthetic
         late-moov files (stco with two tracks, co64, a 64-bit mdat size)
bundle/  the FuzzBundle mode byte, then: a manifest (0), a tar or tar.zst bundle (1),
         an entry name (2)
list/    written by hand (the DESIGN example, BOM + CRLF, bad lines)
m3u8/    playlists from ffmpeg's hls muxer (fMP4, single_file byte ranges, a master with
         an audio group); the others written by hand (key rotation, two maps and a gap,
         EXT-X-DEFINE, live FairPlay)
mpd/     MPDs from ffmpeg's dash muxer (a SegmentList, templates with and without timeline,
         single_file byte ranges); the others written by hand (prefixed names, Periods,
         inherited templates, r="-1"; SegmentBase, CDATA, a list with a timeline; live DRM)
"""
import hashlib, io, json, os, shutil, struct, subprocess, tarfile, tempfile

def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", *args], check=True)

ffmpeg("-f", "lavfi", "-i", "testsrc=size=16x16:rate=5", "-t", "0.4", "-c:v", "libx264",
       "-preset", "ultrafast", "-g", "2", "-pix_fmt", "yuv420p", "mp4/ffmpeg-moov-at-end.mp4")
ffmpeg("-i", "mp4/ffmpeg-moov-at-end.mp4", "-c", "copy", "-movflags", "faststart", "mp4/ffmpeg-faststart.mp4")
ffmpeg("-i", "mp4/ffmpeg-moov-at-end.mp4", "-c", "copy", "-movflags", "frag_keyframe+empty_moov",
       "mp4/ffmpeg-fragmented.mp4")

def box(t, p): return struct.pack(">I", len(p) + 8) + t.encode() + p
def large(t, p): return struct.pack(">I", 1) + t.encode() + struct.pack(">Q", len(p) + 16) + p
def stco(offs): return box("stco", b"\0" * 4 + struct.pack(">I", len(offs)) + b"".join(struct.pack(">I", o) for o in offs))
def co64(offs): return box("co64", b"\0" * 4 + struct.pack(">I", len(offs)) + b"".join(struct.pack(">Q", o) for o in offs))
def track(table): return box("trak", box("tkhd", b"\1" * 20) + box("mdia", box("minf", box("stbl", box("stsd", b"\0" * 4) + table))))
ftyp = box("ftyp", b"isom" + b"\0\0\2\0" + b"isomiso2avc1mp41")

def late(tracks, chunks, table, mdat_box=box):
    head = ftyp + box("free", b"")
    payload = bytes((i * 31) & 0xFF for i in range(tracks * chunks * 16))
    start = len(head) + (16 if mdat_box is large else 8)
    tables = b"".join(track(table([start + (t * chunks + c) * 16 for c in range(chunks)])) for t in range(tracks))
    return head + mdat_box("mdat", payload) + box("moov", box("mvhd", b"\7" * 24) + tables)

open("mp4/synthetic-stco-2-tracks.mp4", "wb").write(late(2, 3, stco))
open("mp4/synthetic-co64.mp4", "wb").write(late(1, 4, co64))
open("mp4/synthetic-64bit-mdat.mp4", "wb").write(late(1, 2, stco, large))

def entry(url, data, ext):
    key = hashlib.sha256(url.encode()).hexdigest()
    return {"key": key, "path": f"objects/{key}.{ext}", "url": url, "mirrors": [], "cache_key": url,
            "name": "intro.mp4", "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "content_type": "video/mp4", "faststart": "relocated",
            "validators": {"etag": "\"abc\"", "last_modified": "Tue, 01 Oct 2024 10:00:00 GMT"},
            "added": "2024-10-01T10:00:00Z", "urls_redacted": False}

# FuzzBundle packs mode-0 objects as 0x5A bytes: these digests match what it writes.
objects = [("https://cdn.example/a.mp4", b"\x5a" * 100, "mp4"), ("https://cdn.example/b.m4a", b"\x5a" * 700, "m4a")]
manifest = json.dumps({"format": "mediacache-bundle", "version": 1, "created": "2024-10-02T08:00:00Z",
                       "generator": "mediacache 0.1", "entries": [entry(*o) for o in objects]},
                      indent=2, sort_keys=True).encode()
open("bundle/manifest.bin", "wb").write(b"\0" + manifest)
buffer = io.BytesIO()
with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
    for name, data in [("manifest.json", manifest)] + [
            (f"objects/{hashlib.sha256(u.encode()).hexdigest()}.{e}", d) for u, d, e in objects]:
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode = len(data), 1727769600, 0o644
        tar.addfile(info, io.BytesIO(data))
open("bundle/bundle-tar.bin", "wb").write(b"\1" + buffer.getvalue())
zstd = subprocess.run(["zstd", "-q", "-c", "-3"], input=buffer.getvalue(), capture_output=True, check=True).stdout
open("bundle/bundle-zstd.bin", "wb").write(b"\1" + zstd)
open("bundle/path.bin", "wb").write(b"\2" + f"objects/{hashlib.sha256(b'https://cdn.example/a.mp4').hexdigest()}.mp4".encode())

with tempfile.TemporaryDirectory() as work:
    source = ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-t", "5", "-c:v", "libx264", "-g", "10",
              "-f", "hls", "-hls_time", "2"]
    ffmpeg(*source, "-hls_segment_type", "fmp4", "-hls_playlist_type", "vod", f"{work}/out.m3u8")
    ffmpeg(*source, "-hls_flags", "single_file", f"{work}/single.m3u8")
    ffmpeg("-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-f", "lavfi", "-i", "sine=f=440", "-t", "4",
           "-map", "0:v", "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-c:a", "aac", "-b:v:0", "300k",
           "-s:v:1", "32x24", "-b:v:1", "100k", "-g", "10", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
           "-hls_segment_type", "fmp4", "-master_pl_name", "master.m3u8", "-var_stream_map",
           "v:0,agroup:aud v:1,agroup:aud a:0,agroup:aud,language:en,name:English,default:yes",
           f"{work}/stream_%v.m3u8")
    shutil.copy(f"{work}/out.m3u8", "m3u8/ffmpeg-fmp4.m3u8")
    shutil.copy(f"{work}/single.m3u8", "m3u8/ffmpeg-single-file.m3u8")
    shutil.copy(f"{work}/master.m3u8", "m3u8/ffmpeg-master-audio-group.m3u8")

with tempfile.TemporaryDirectory() as work:
    source = ["-f", "lavfi", "-i", "testsrc=d=6:s=320x240", "-f", "lavfi", "-i", "sine=d=6", "-c:v", "libx264",
              "-c:a", "aac", "-g", "25", "-f", "dash", "-seg_duration", "2"]
    for name, options in [("segment-list", ["-use_template", "0", "-use_timeline", "0"]),
                          ("timeline", ["-use_template", "1", "-use_timeline", "1"]),
                          ("numbered", ["-use_template", "1", "-use_timeline", "0"]),
                          ("single-file", ["-single_file", "1"])]:
        # Each as out.mpd in a folder of its own: single_file names its files after it.
        os.mkdir(f"{work}/{name}")
        ffmpeg(*source, *options, f"{work}/{name}/out.mpd")
        shutil.copy(f"{work}/{name}/out.mpd", f"mpd/ffmpeg-{name}.mpd")
