function __mediacache_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __mediacache_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __mediacache_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __mediacache_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __mediacache_parse_tokens -S
    set -l unparsed_tokens (__mediacache_tokens -pc)
    switch $unparsed_tokens[1]
    case 'mediacache'
        __mediacache_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'prefetch'
            __mediacache_parse_subcommand -r 1 'i/input-file=+' 'd/dir=' 'o/output=' 'shard=' 'cache-dir=' 'config=' 'no-config' 'j/jobs=' 'x/connections=' 'min-fragment=' 'max-stream-size=' 'H/header=+' 'retries=' 'timeout=' 'lowest-speed-limit=' 'limit-rate=' 'max-download-limit=' 'k/insecure' 'no-insecure' 'ca-certificate=' 'faststart' 'no-faststart' 'json' 'no-json' 'q/quiet' 'no-quiet' 'summary-interval=' 'proxy=' 'no-proxy=' 'load-cookies=' 'netrc' 'no-netrc' 'netrc-file=' 'user-agent=' 'referer=' 'max-connections-per-host=' 'tier=' 's3-endpoint=' 'tier-push' 'no-tier-push' 'tier-required' 'no-tier-required' 'max-height=' 'max-bandwidth=' 'all-variants' 'no-all-variants' 'audio-lang=' 'version' 'h/help'
        case 'resume'
            __mediacache_parse_subcommand 0 'cache-dir=' 'config=' 'no-config' 'j/jobs=' 'x/connections=' 'min-fragment=' 'max-stream-size=' 'H/header=+' 'retries=' 'timeout=' 'lowest-speed-limit=' 'limit-rate=' 'max-download-limit=' 'k/insecure' 'no-insecure' 'ca-certificate=' 'faststart' 'no-faststart' 'json' 'no-json' 'q/quiet' 'no-quiet' 'summary-interval=' 'proxy=' 'no-proxy=' 'load-cookies=' 'netrc' 'no-netrc' 'netrc-file=' 'user-agent=' 'referer=' 'max-connections-per-host=' 'tier=' 's3-endpoint=' 'tier-push' 'no-tier-push' 'tier-required' 'no-tier-required' 'max-height=' 'max-bandwidth=' 'all-variants' 'no-all-variants' 'audio-lang=' 'version' 'h/help'
        case 'status'
            __mediacache_parse_subcommand 0 'cache-dir=' 'config=' 'no-config' 'json' 'version' 'h/help'
        case 'path'
            __mediacache_parse_subcommand 1 'cache-dir=' 'config=' 'no-config' 'version' 'h/help'
        case 'info'
            __mediacache_parse_subcommand 1 'cache-dir=' 'config=' 'no-config' 'json' 'version' 'h/help'
        case 'ls'
            __mediacache_parse_subcommand 0 'cache-dir=' 'config=' 'no-config' 'sort=' 'json' 'version' 'h/help'
        case 'rm'
            __mediacache_parse_subcommand -r 1 'cache-dir=' 'config=' 'no-config' 'version' 'h/help'
        case 'gc'
            __mediacache_parse_subcommand 0 'max-size=' 'partial-older-than=' 'cache-dir=' 'config=' 'no-config' 'version' 'h/help'
        case 'stats'
            __mediacache_parse_subcommand 0 'cache-dir=' 'config=' 'no-config' 'json' 'version' 'h/help'
        case 'verify'
            __mediacache_parse_subcommand -r 1 'q/quiet' 'repair' 'cache-dir=' 'config=' 'no-config' 'version' 'h/help'
        case 'export'
            __mediacache_parse_subcommand -r 2 'since=' 'exclude-manifest=+' 'level=' 'threads=' 'keep-query' 'q/quiet' 'cache-dir=' 'config=' 'no-config' 'version' 'h/help'
        case 'import'
            __mediacache_parse_subcommand -r 1 'dry-run' 'replace' 'json' 'q/quiet' 'cache-dir=' 'config=' 'no-config' 'version' 'h/help'
        case 'bundle-info'
            __mediacache_parse_subcommand 1 'json' 'cache-dir=' 'config=' 'no-config' 'version' 'h/help'
        case 'serve'
            __mediacache_parse_subcommand -r 1 'listen=' 'allow-remote' 'idle-timeout=' 'i/input-file=+' 'cache-dir=' 'config=' 'no-config' 'j/jobs=' 'x/connections=' 'min-fragment=' 'max-stream-size=' 'H/header=+' 'retries=' 'timeout=' 'lowest-speed-limit=' 'limit-rate=' 'max-download-limit=' 'k/insecure' 'no-insecure' 'ca-certificate=' 'faststart' 'no-faststart' 'json' 'no-json' 'q/quiet' 'no-quiet' 'summary-interval=' 'proxy=' 'no-proxy=' 'load-cookies=' 'netrc' 'no-netrc' 'netrc-file=' 'user-agent=' 'referer=' 'max-connections-per-host=' 'tier=' 's3-endpoint=' 'tier-push' 'no-tier-push' 'tier-required' 'no-tier-required' 'max-height=' 'max-bandwidth=' 'all-variants' 'no-all-variants' 'audio-lang=' 'version' 'h/help'
        case 'url'
            __mediacache_parse_subcommand 1 'H/header=+' 'cache-key=' 'server=' 'cache-dir=' 'config=' 'no-config' 'version' 'h/help'
        case 'push'
            __mediacache_parse_subcommand -r 1 'cache-dir=' 'config=' 'no-config' 'tier=' 's3-endpoint=' 'k/insecure' 'json' 'version' 'h/help'
        case 'pull'
            __mediacache_parse_subcommand -r 1 'cache-dir=' 'config=' 'no-config' 'tier=' 's3-endpoint=' 'j/jobs=' 'x/connections=' 'k/insecure' 'json' 'q/quiet' 'version' 'h/help'
        case 'tier'
            __mediacache_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'ls'
                __mediacache_parse_subcommand 0 'cache-dir=' 'config=' 'no-config' 'tier=' 's3-endpoint=' 'k/insecure' 'json' 'version' 'h/help'
            end
        case 'config'
            __mediacache_parse_subcommand -r 1 'config=' 'no-config' 'version' 'h/help'
        case 'completions'
            __mediacache_parse_subcommand 1 'version' 'h/help'
        case 'help'
            __mediacache_parse_subcommand -r 1 'version'
        end
    end
end

function __mediacache_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __mediacache_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __mediacache_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __mediacache_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__mediacache_tokens -p)
    if test -z "$(__mediacache_tokens -t)"
        set -l index (count (__mediacache_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'mediacache' -f
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'prefetch' -d 'Download URLs and lists into the cache.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'resume' -d 'Finish interrupted runs, no list needed.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'status' -d 'What `resume` would do; the last run\'s failures.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'path' -d 'Print the path of a cached, verified object.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'info' -d 'Everything known about one object or download.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'ls' -d 'List cached objects.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'rm' -d 'Remove objects and unfinished downloads.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'gc' -d 'Remove orphans; evict the least used down to a size.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'stats' -d 'Show how many objects and bytes the cache holds.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'verify' -d 'Re-hash cached objects against the index.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'export' -d 'Write cached objects into a bundle.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'import' -d 'Verify and add the objects of bundles.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'bundle-info' -d 'List what a bundle holds without importing it.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'serve' -d 'Serve the cache to players, fetching what is missing.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'url' -d 'Print the URL that plays URL through `serve`.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'push' -d 'Upload cached objects to the fleet\'s shared tier.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'pull' -d 'Fill the cache from the fleet\'s tier, not the origin.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'tier' -d 'Look at the fleet\'s shared tier (S3-compatible).'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'config' -d 'Show the config file and what it sets.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'completions' -d 'Print the completion script for bash, zsh or fish.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache prefetch" -ge 1' -F
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch"' -s 'i' -l 'input-file' -d 'A list file to read (or - for standard input), as aria2\'s -i; may be repeated.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" d dir' -s 'd' -l 'dir' -d 'Also put each finished file in this folder, named by out=, the origin\'s name for it, or the URL (a list\'s dir= wins); the cache keeps it too.' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" o out output' -s 'o' -l 'output' -l 'out' -d 'Also put the file of the one URL given at this path, replacing a file there, as curl\'s -o does (relative to -d when given); the cache keeps it too.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" shard' -l 'shard' -d 'Take only shard K of N of the entries (by cache key), so N machines split one catalogue; e.g. 0/4.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" j jobs' -s 'j' -l 'jobs' -d 'Files downloaded at once (1-64).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" connections x' -s 'x' -l 'connections' -d 'Connections per file (1-32; default 8), and segments of a streaming title fetched at once (default 16).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" min-fragment' -l 'min-fragment' -d 'Smallest byte range planned for one connection (e.g. 512K, 4M); at the end of a slow file, idle connections take smaller ones. A streaming title\'s single file comes in pieces of this size: byte ranges of one file once it is at least twice as large, a DASH representation\'s one media file always.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" max-stream-size' -l 'max-stream-size' -d 'Most bytes kept of a response that never says its length (an endless stream, a radio URL): past it the entry fails and nothing of it is kept (e.g. 2G; default 64G).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch"' -s 'H' -l 'header' -d 'Extra request header \'Name: value\' for every entry (repeatable); sent to its URLs\' hosts (mirrors too), never to another host after a redirect.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" retries' -l 'retries' -d 'Failures in a row (without progress) before a file is given up.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" timeout' -l 'timeout' -d 'Seconds without data before a connection counts as stalled.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" lowest-speed-limit' -l 'lowest-speed-limit' -d 'Abandon and retry a connection slower than this per second for --timeout seconds (e.g. 10K; 0: off).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" limit-rate' -l 'limit-rate' -d 'Most bytes per second for the whole run, all files and connections together (e.g. 500K, 2M; 0: unlimited).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" max-download-limit' -l 'max-download-limit' -d 'Most bytes per second for each file (e.g. 500K; 0: unlimited); an entry\'s max-download-limit= overrides it.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" insecure k' -s 'k' -l 'insecure' -d 'Do not check TLS certificates (self-signed test servers); the connection is not authenticated.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" no-insecure' -l 'no-insecure' -d 'Do not check TLS certificates (self-signed test servers); the connection is not authenticated.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" ca-certificate cacert' -l 'ca-certificate' -l 'cacert' -d 'Check TLS certificates against the CAs in this PEM file (a private CA), not the system\'s; CURL_CA_BUNDLE or SSL_CERT_FILE in the environment do the same.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" faststart' -l 'faststart' -d 'Store MP4/MOV files with their moov first, so they play at once (default); --no-faststart keeps the origin\'s bytes exactly.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" no-faststart' -l 'no-faststart' -d 'Store MP4/MOV files with their moov first, so they play at once (default); --no-faststart keeps the origin\'s bytes exactly.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" json' -l 'json' -d 'Print events as NDJSON on stdout.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" no-json' -l 'no-json' -d 'Print events as NDJSON on stdout.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" q quiet' -s 'q' -l 'quiet' -d 'Print only errors and the final summary.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" no-quiet' -l 'no-quiet' -d 'Print only errors and the final summary.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" summary-interval' -l 'summary-interval' -d 'Seconds between progress lines (files done, bytes, rate, ETA) when stderr is not a terminal, as aria2\'s (0: none).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" proxy' -l 'proxy' -d 'Proxy for every request: [http|https|socks5|socks5h://][user:password@]host[:port] (no scheme: http; \'\': none, not even from the environment). A list entry\'s all-proxy= wins.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" no-proxy' -l 'no-proxy' -d 'Hosts reached without the proxy, comma-separated (curl\'s NOPROXY: \'*\' for all; a name also matches its subdomains; IP addresses and CIDR ranges); replaces no_proxy from the environment.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" load-cookies' -l 'load-cookies' -d 'Netscape cookies.txt file (as browser exporters, curl, wget, aria2 and yt-dlp write); each cookie goes only to the hosts and paths it matches.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" netrc' -l 'netrc' -d 'Log in to origins with the logins in ~/.netrc.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" no-netrc' -l 'no-netrc' -d 'Log in to origins with the logins in ~/.netrc.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" netrc-file' -l 'netrc-file' -d 'Log in to origins with the logins in this netrc file.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" user-agent' -l 'user-agent' -d 'User-Agent header (default: mediacache/VERSION); a list entry\'s user-agent= wins.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" referer' -l 'referer' -d 'Referer header for every request (\'*\': the entry\'s own URL); a list entry\'s referer= wins.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" max-connections-per-host' -l 'max-connections-per-host' -d 'Connections open to one host at once, across all files (1-64; through a proxy: to the proxy).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" tier' -l 'tier' -d 'The shared tier, s3://BUCKET/PREFIX (default: $MEDIACACHE_TIER).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" s3-endpoint' -l 's3-endpoint' -d 'URL of the S3-compatible store holding the tier (default: $AWS_ENDPOINT_URL).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" tier-push' -l 'tier-push' -d 'Upload every object this run commits to the tier, behind the downloads.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" no-tier-push' -l 'no-tier-push' -d 'Upload every object this run commits to the tier, behind the downloads.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" tier-required' -l 'tier-required' -d 'Fail (exit 1) when the tier cannot be used, instead of warning and fetching from the origin.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" no-tier-required' -l 'no-tier-required' -d 'Fail (exit 1) when the tier cannot be used, instead of warning and fetching from the origin.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" max-height' -l 'max-height' -d 'Leave out variants taller than this many pixels (like yt-dlp\'s -f \'bv[height<=720]\').' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" max-bandwidth' -l 'max-bandwidth' -d 'Leave out variants above this many bits per second (e.g. 800K, 5M).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" all-variants' -l 'all-variants' -d 'Fetch every variant within the limits, not only the best.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" no-all-variants' -l 'no-all-variants' -d 'Fetch every variant within the limits, not only the best.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" audio-lang' -l 'audio-lang' -d 'Audio renditions in one of these languages (e.g. en,de; de also takes deu, ger and de-AT), or \'all\' (default: the default track).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache prefetch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" j jobs' -s 'j' -l 'jobs' -d 'Files downloaded at once (1-64).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" connections x' -s 'x' -l 'connections' -d 'Connections per file (1-32; default 8), and segments of a streaming title fetched at once (default 16).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" min-fragment' -l 'min-fragment' -d 'Smallest byte range planned for one connection (e.g. 512K, 4M); at the end of a slow file, idle connections take smaller ones. A streaming title\'s single file comes in pieces of this size: byte ranges of one file once it is at least twice as large, a DASH representation\'s one media file always.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" max-stream-size' -l 'max-stream-size' -d 'Most bytes kept of a response that never says its length (an endless stream, a radio URL): past it the entry fails and nothing of it is kept (e.g. 2G; default 64G).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume"' -s 'H' -l 'header' -d 'Extra request header \'Name: value\' for every entry (repeatable); sent to its URLs\' hosts (mirrors too), never to another host after a redirect.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" retries' -l 'retries' -d 'Failures in a row (without progress) before a file is given up.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" timeout' -l 'timeout' -d 'Seconds without data before a connection counts as stalled.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" lowest-speed-limit' -l 'lowest-speed-limit' -d 'Abandon and retry a connection slower than this per second for --timeout seconds (e.g. 10K; 0: off).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" limit-rate' -l 'limit-rate' -d 'Most bytes per second for the whole run, all files and connections together (e.g. 500K, 2M; 0: unlimited).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" max-download-limit' -l 'max-download-limit' -d 'Most bytes per second for each file (e.g. 500K; 0: unlimited); an entry\'s max-download-limit= overrides it.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" insecure k' -s 'k' -l 'insecure' -d 'Do not check TLS certificates (self-signed test servers); the connection is not authenticated.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" no-insecure' -l 'no-insecure' -d 'Do not check TLS certificates (self-signed test servers); the connection is not authenticated.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" ca-certificate cacert' -l 'ca-certificate' -l 'cacert' -d 'Check TLS certificates against the CAs in this PEM file (a private CA), not the system\'s; CURL_CA_BUNDLE or SSL_CERT_FILE in the environment do the same.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" faststart' -l 'faststart' -d 'Store MP4/MOV files with their moov first, so they play at once (default); --no-faststart keeps the origin\'s bytes exactly.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" no-faststart' -l 'no-faststart' -d 'Store MP4/MOV files with their moov first, so they play at once (default); --no-faststart keeps the origin\'s bytes exactly.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" json' -l 'json' -d 'Print events as NDJSON on stdout.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" no-json' -l 'no-json' -d 'Print events as NDJSON on stdout.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" q quiet' -s 'q' -l 'quiet' -d 'Print only errors and the final summary.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" no-quiet' -l 'no-quiet' -d 'Print only errors and the final summary.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" summary-interval' -l 'summary-interval' -d 'Seconds between progress lines (files done, bytes, rate, ETA) when stderr is not a terminal, as aria2\'s (0: none).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" proxy' -l 'proxy' -d 'Proxy for every request: [http|https|socks5|socks5h://][user:password@]host[:port] (no scheme: http; \'\': none, not even from the environment). A list entry\'s all-proxy= wins.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" no-proxy' -l 'no-proxy' -d 'Hosts reached without the proxy, comma-separated (curl\'s NOPROXY: \'*\' for all; a name also matches its subdomains; IP addresses and CIDR ranges); replaces no_proxy from the environment.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" load-cookies' -l 'load-cookies' -d 'Netscape cookies.txt file (as browser exporters, curl, wget, aria2 and yt-dlp write); each cookie goes only to the hosts and paths it matches.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" netrc' -l 'netrc' -d 'Log in to origins with the logins in ~/.netrc.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" no-netrc' -l 'no-netrc' -d 'Log in to origins with the logins in ~/.netrc.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" netrc-file' -l 'netrc-file' -d 'Log in to origins with the logins in this netrc file.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" user-agent' -l 'user-agent' -d 'User-Agent header (default: mediacache/VERSION); a list entry\'s user-agent= wins.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" referer' -l 'referer' -d 'Referer header for every request (\'*\': the entry\'s own URL); a list entry\'s referer= wins.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" max-connections-per-host' -l 'max-connections-per-host' -d 'Connections open to one host at once, across all files (1-64; through a proxy: to the proxy).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" tier' -l 'tier' -d 'The shared tier, s3://BUCKET/PREFIX (default: $MEDIACACHE_TIER).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" s3-endpoint' -l 's3-endpoint' -d 'URL of the S3-compatible store holding the tier (default: $AWS_ENDPOINT_URL).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" tier-push' -l 'tier-push' -d 'Upload every object this run commits to the tier, behind the downloads.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" no-tier-push' -l 'no-tier-push' -d 'Upload every object this run commits to the tier, behind the downloads.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" tier-required' -l 'tier-required' -d 'Fail (exit 1) when the tier cannot be used, instead of warning and fetching from the origin.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" no-tier-required' -l 'no-tier-required' -d 'Fail (exit 1) when the tier cannot be used, instead of warning and fetching from the origin.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" max-height' -l 'max-height' -d 'Leave out variants taller than this many pixels (like yt-dlp\'s -f \'bv[height<=720]\').' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" max-bandwidth' -l 'max-bandwidth' -d 'Leave out variants above this many bits per second (e.g. 800K, 5M).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" all-variants' -l 'all-variants' -d 'Fetch every variant within the limits, not only the best.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" no-all-variants' -l 'no-all-variants' -d 'Fetch every variant within the limits, not only the best.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" audio-lang' -l 'audio-lang' -d 'Audio renditions in one of these languages (e.g. en,de; de also takes deu, ger and de-AT), or \'all\' (default: the default track).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache resume" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache status" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache status" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache status" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache status" json' -l 'json' -d 'Print one JSON object per item on stdout (JSON lines), each with "state": "partial", "queued" or "failed".'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache status" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache path" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache path" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache path" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache path" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache path" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache info" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache info" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache info" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache info" json' -l 'json' -d 'Print one JSON object on stdout.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache info" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache info" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache ls" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache ls" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache ls" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache ls" sort' -l 'sort' -d 'Sort by added, used (last use), size or name.' -rfka 'added used size name'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache ls" json' -l 'json' -d 'Print one JSON object per cached object on stdout (JSON lines; nothing for an empty cache).'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache ls" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache ls" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache rm" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache rm" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache rm" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache rm" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache rm" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache gc" max-size' -l 'max-size' -d 'Largest total size of the objects to keep (e.g. 20G).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache gc" partial-older-than' -l 'partial-older-than' -d 'Also remove partial downloads untouched for longer than this (e.g. 30m, 12h, 7d).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache gc" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache gc" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache gc" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache gc" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache gc" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache stats" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache stats" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache stats" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache stats" json' -l 'json' -d 'Print one JSON object on stdout.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache stats" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache stats" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache verify" q quiet' -s 'q' -l 'quiet' -d 'Print only problems.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache verify" repair' -l 'repair' -d 'Remove every bad object (index row and file) so the next prefetch fetches it again.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache verify" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache verify" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache verify" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache verify" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache export" -eq 1' -F
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache export" since' -l 'since' -d 'Only objects added at or after this date (2026-03-01, 2026-03-01T14:30, …T14:30:00Z; local time unless a zone is given).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache export"' -l 'exclude-manifest' -d 'Leave out objects this bundle already holds with the same bytes (repeatable).' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache export" level' -l 'level' -d 'zstd compression level, 1 (fastest) to 19; media is already compressed, so higher levels rarely pay.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache export" threads' -l 'threads' -d 'zstd compression threads (default: one per core).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache export" keep-query' -l 'keep-query' -d 'Keep the query of URLs of objects cached under a cache-key (it may hold expiring tokens).'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache export" q quiet' -s 'q' -l 'quiet' -d 'Print no progress, only errors.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache export" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache export" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache export" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache export" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache import" -ge 1' -F
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache import" dry-run' -l 'dry-run' -d 'Read and verify every object, change nothing.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache import" replace' -l 'replace' -d 'Take the bundle\'s version of an object the cache holds with different bytes.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache import" json' -l 'json' -d 'Print one JSON object per event on stdout.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache import" q quiet' -s 'q' -l 'quiet' -d 'Print only problems.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache import" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache import" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache import" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache import" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache bundle-info" -eq 1' -F
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache bundle-info" json' -l 'json' -d 'Print the manifest as JSON on stdout.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache bundle-info" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache bundle-info" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache bundle-info" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache bundle-info" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache bundle-info" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" listen' -l 'listen' -d 'The address to listen on, ADDR:PORT (port 0 picks a free one). A loopback address unless --allow-remote says otherwise; never the wildcard.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" allow-remote' -l 'allow-remote' -d 'Let --listen name an address other machines reach. Anyone who can reach it can play what the cache holds; requests must then name that address as their Host.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" idle-timeout' -l 'idle-timeout' -d 'Seconds a client connection may stay silent (between requests, or in the middle of a request head) before it is closed (1-3600); one that stops reading its answer is closed after six times this.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache serve" -ge 1' -F
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve"' -s 'i' -l 'input-file' -d 'A list file to read (or - for standard input), as aria2\'s -i; may be repeated.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" j jobs' -s 'j' -l 'jobs' -d 'Files downloaded at once (1-64).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" connections x' -s 'x' -l 'connections' -d 'Connections per file (1-32; default 8), and segments of a streaming title fetched at once (default 16).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" min-fragment' -l 'min-fragment' -d 'Smallest byte range planned for one connection (e.g. 512K, 4M); at the end of a slow file, idle connections take smaller ones. A streaming title\'s single file comes in pieces of this size: byte ranges of one file once it is at least twice as large, a DASH representation\'s one media file always.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" max-stream-size' -l 'max-stream-size' -d 'Most bytes kept of a response that never says its length (an endless stream, a radio URL): past it the entry fails and nothing of it is kept (e.g. 2G; default 64G).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve"' -s 'H' -l 'header' -d 'Extra request header \'Name: value\' for every entry (repeatable); sent to its URLs\' hosts (mirrors too), never to another host after a redirect.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" retries' -l 'retries' -d 'Failures in a row (without progress) before a file is given up.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" timeout' -l 'timeout' -d 'Seconds without data before a connection counts as stalled.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" lowest-speed-limit' -l 'lowest-speed-limit' -d 'Abandon and retry a connection slower than this per second for --timeout seconds (e.g. 10K; 0: off).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" limit-rate' -l 'limit-rate' -d 'Most bytes per second for the whole run, all files and connections together (e.g. 500K, 2M; 0: unlimited).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" max-download-limit' -l 'max-download-limit' -d 'Most bytes per second for each file (e.g. 500K; 0: unlimited); an entry\'s max-download-limit= overrides it.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" insecure k' -s 'k' -l 'insecure' -d 'Do not check TLS certificates (self-signed test servers); the connection is not authenticated.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" no-insecure' -l 'no-insecure' -d 'Do not check TLS certificates (self-signed test servers); the connection is not authenticated.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" ca-certificate cacert' -l 'ca-certificate' -l 'cacert' -d 'Check TLS certificates against the CAs in this PEM file (a private CA), not the system\'s; CURL_CA_BUNDLE or SSL_CERT_FILE in the environment do the same.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" faststart' -l 'faststart' -d 'Store MP4/MOV files with their moov first, so they play at once (default); --no-faststart keeps the origin\'s bytes exactly.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" no-faststart' -l 'no-faststart' -d 'Store MP4/MOV files with their moov first, so they play at once (default); --no-faststart keeps the origin\'s bytes exactly.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" json' -l 'json' -d 'Print events as NDJSON on stdout.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" no-json' -l 'no-json' -d 'Print events as NDJSON on stdout.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" q quiet' -s 'q' -l 'quiet' -d 'Print only errors and the final summary.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" no-quiet' -l 'no-quiet' -d 'Print only errors and the final summary.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" summary-interval' -l 'summary-interval' -d 'Seconds between progress lines (files done, bytes, rate, ETA) when stderr is not a terminal, as aria2\'s (0: none).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" proxy' -l 'proxy' -d 'Proxy for every request: [http|https|socks5|socks5h://][user:password@]host[:port] (no scheme: http; \'\': none, not even from the environment). A list entry\'s all-proxy= wins.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" no-proxy' -l 'no-proxy' -d 'Hosts reached without the proxy, comma-separated (curl\'s NOPROXY: \'*\' for all; a name also matches its subdomains; IP addresses and CIDR ranges); replaces no_proxy from the environment.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" load-cookies' -l 'load-cookies' -d 'Netscape cookies.txt file (as browser exporters, curl, wget, aria2 and yt-dlp write); each cookie goes only to the hosts and paths it matches.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" netrc' -l 'netrc' -d 'Log in to origins with the logins in ~/.netrc.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" no-netrc' -l 'no-netrc' -d 'Log in to origins with the logins in ~/.netrc.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" netrc-file' -l 'netrc-file' -d 'Log in to origins with the logins in this netrc file.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" user-agent' -l 'user-agent' -d 'User-Agent header (default: mediacache/VERSION); a list entry\'s user-agent= wins.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" referer' -l 'referer' -d 'Referer header for every request (\'*\': the entry\'s own URL); a list entry\'s referer= wins.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" max-connections-per-host' -l 'max-connections-per-host' -d 'Connections open to one host at once, across all files (1-64; through a proxy: to the proxy).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" tier' -l 'tier' -d 'The shared tier, s3://BUCKET/PREFIX (default: $MEDIACACHE_TIER).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" s3-endpoint' -l 's3-endpoint' -d 'URL of the S3-compatible store holding the tier (default: $AWS_ENDPOINT_URL).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" tier-push' -l 'tier-push' -d 'Upload every object this run commits to the tier, behind the downloads.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" no-tier-push' -l 'no-tier-push' -d 'Upload every object this run commits to the tier, behind the downloads.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" tier-required' -l 'tier-required' -d 'Fail (exit 1) when the tier cannot be used, instead of warning and fetching from the origin.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" no-tier-required' -l 'no-tier-required' -d 'Fail (exit 1) when the tier cannot be used, instead of warning and fetching from the origin.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" max-height' -l 'max-height' -d 'Leave out variants taller than this many pixels (like yt-dlp\'s -f \'bv[height<=720]\').' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" max-bandwidth' -l 'max-bandwidth' -d 'Leave out variants above this many bits per second (e.g. 800K, 5M).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" all-variants' -l 'all-variants' -d 'Fetch every variant within the limits, not only the best.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" no-all-variants' -l 'no-all-variants' -d 'Fetch every variant within the limits, not only the best.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" audio-lang' -l 'audio-lang' -d 'Audio renditions in one of these languages (e.g. en,de; de also takes deu, ger and de-AT), or \'all\' (default: the default track).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache serve" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache url"' -s 'H' -l 'header' -d 'A request header for URL\'s host, \'Name: value\' (repeatable).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache url" cache-key' -l 'cache-key' -d 'The object\'s identity, as in a list\'s cache-key=.' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache url" server' -l 'server' -d 'The server\'s base URL (default: the one `mediacache serve` recorded in the cache directory).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache url" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache url" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache url" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache url" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache url" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache push" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache push" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache push" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache push" tier' -l 'tier' -d 'The shared tier, s3://BUCKET/PREFIX (default: $MEDIACACHE_TIER).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache push" s3-endpoint' -l 's3-endpoint' -d 'URL of the S3-compatible store holding the tier (default: $AWS_ENDPOINT_URL).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache push" insecure k' -s 'k' -l 'insecure' -d 'Do not check the S3 endpoint\'s TLS certificate.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache push" json' -l 'json' -d 'Print one JSON object per object on stdout, then a summary.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache push" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache push" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache pull" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache pull" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache pull" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache pull" tier' -l 'tier' -d 'The shared tier, s3://BUCKET/PREFIX (default: $MEDIACACHE_TIER).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache pull" s3-endpoint' -l 's3-endpoint' -d 'URL of the S3-compatible store holding the tier (default: $AWS_ENDPOINT_URL).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache pull" j jobs' -s 'j' -l 'jobs' -d 'Objects fetched at once (1-64).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache pull" connections x' -s 'x' -l 'connections' -d 'Connections per object (1-32).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache pull" insecure k' -s 'k' -l 'insecure' -d 'Do not check the S3 endpoint\'s TLS certificate.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache pull" json' -l 'json' -d 'Print events as NDJSON on stdout.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache pull" q quiet' -s 'q' -l 'quiet' -d 'Print only errors and the final summary.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache pull" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache pull" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache tier" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache tier" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_positional "mediacache tier" -eq 1' -fa 'ls' -d 'List what the tier holds: size, faststart state, SHA-256 and URL of each record.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache tier ls" cache-dir' -l 'cache-dir' -d 'The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).' -rfa '(__mediacache_complete_directories)'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache tier ls" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache tier ls" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache tier ls" tier' -l 'tier' -d 'The shared tier, s3://BUCKET/PREFIX (default: $MEDIACACHE_TIER).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache tier ls" s3-endpoint' -l 's3-endpoint' -d 'URL of the S3-compatible store holding the tier (default: $AWS_ENDPOINT_URL).' -rfka ''
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache tier ls" insecure k' -s 'k' -l 'insecure' -d 'Do not check the S3 endpoint\'s TLS certificate.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache tier ls" json' -l 'json' -d 'Print one JSON object per record on stdout (JSON lines).'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache tier ls" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache tier ls" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache config" config' -l 'config' -d 'Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.' -rF
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache config" no-config' -l 'no-config' -d 'Read no config file.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache config" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache config" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache completions" version' -l 'version' -d 'Show the version.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache completions" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'mediacache' -n '__mediacache_should_offer_completions_for_flags_or_options "mediacache help" version' -l 'version' -d 'Show the version.'
