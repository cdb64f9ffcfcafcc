/// `/status.js`: renders the status page from `/status.json` once a second, plays one
/// item at a time in the page's player, and sends the page's actions. Everything it
/// shows goes through `textContent`, never markup: names come from URLs and lists.
enum StatusScript {
    static let text = #"""
        "use strict";
        const units = ["B", "KiB", "MiB", "GiB", "TiB"];
        function size(n) {
          let i = 0;
          while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
          return i === 0 ? n + " B" : n.toFixed(1) + " " + units[i];
        }
        function duration(s) {
          if (!isFinite(s)) return "?";
          if (s < 60) return Math.ceil(s) + " s";
          if (s < 3600) return Math.floor(s / 60) + " min " + Math.round(s % 60) + " s";
          return Math.floor(s / 3600) + " h " + Math.round((s % 3600) / 60) + " min";
        }
        function el(tag, cls, text) {
          const e = document.createElement(tag);
          if (cls) e.className = cls;
          if (text !== undefined) e.textContent = text;
          return e;
        }
        function note(text) { document.getElementById("note").textContent = text; }
        function play(local, name) {
          const player = document.getElementById("player");
          document.getElementById("playing").textContent = "Playing: " + name;
          document.getElementById("now").hidden = false;
          player.src = local;
          player.play().catch(() => {});
        }
        async function act(path, body) {
          try {
            const response = await fetch(path, {
              method: "POST",
              headers: { "Content-Type": "application/json", "X-Mediacache-Action": "1" },
              body: JSON.stringify(body),
            });
            note((await response.text()).trim());
          } catch (error) {
            note("the server did not answer: " + error);
          }
          refresh();
        }
        function bar(ranges, length) {
          const b = el("div", "bar");
          if (length > 0) {
            for (const [start, end] of ranges) {
              const part = el("span");
              part.style.left = (start * 100 / length) + "%";
              part.style.width = Math.max(0.3, (end - start) * 100 / length) + "%";
              b.append(part);
            }
          }
          return b;
        }
        function button(label, action) {
          const b = el("button", null, label);
          b.type = "button";
          b.addEventListener("click", action);
          return b;
        }
        function downloadRow(d) {
          const row = el("div", "item download");
          const name = el("div", "name", d.name);
          if (d.play) name.append(button("play", () => play(d.play, d.name)));
          name.append(button("stop", () => act("/actions/stop", { key: d.key })));
          name.append(button("remove", () => {
            if (confirm("Stop " + d.name + " and remove what it holds?")) act("/actions/remove", { key: d.key });
          }));
          row.append(name);
          if (d.length !== null && d.length !== undefined) row.append(bar(d.ranges, d.length));
          const parts = [size(d.held) + (d.length ? " of " + size(d.length) + " (" + Math.floor(d.held * 100 / d.length) + " %)" : "")];
          parts.push(size(Math.round(d.rate)) + "/s");
          if (d.length && d.rate > 0) parts.push("ETA " + duration((d.length - d.held) / d.rate));
          parts.push(d.inAnotherProcess ? "in another mediacache process"
            : d.connections + (d.connections === 1 ? " connection" : " connections"));
          row.append(el("div", "meta", parts.join(" · ")));
          row.dataset.held = d.held;
          return row;
        }
        // A title plays in the page only where the browser plays its playlist itself.
        function playable(o) {
          if (o.playType) return document.getElementById("player").canPlayType(o.playType) !== "";
          return o.play;
        }
        function objectRow(o) {
          const row = el("div", "item object");
          const name = el("div", "name", o.name);
          if (o.local && playable(o)) name.append(button("play", () => play(o.local, o.name)));
          if (o.local) {
            const open = el("a", null, o.playType ? "playlist" : "open");
            open.href = o.local;
            name.append(" ", open);
          }
          if (o.token) {
            name.append(button("remove", () => {
              if (confirm("Remove " + o.name + " from the cache?")) act("/actions/remove", { token: o.token });
            }));
          }
          row.append(name, el("div", "meta", size(o.size) + " · " + o.type + " · " + o.faststart));
          return row;
        }
        function render(s) {
          document.getElementById("downloads-title").textContent = "Downloading (" + s.downloads.length + ")";
          const downloads = document.getElementById("downloads");
          downloads.replaceChildren(...s.downloads.map(downloadRow));
          if (s.downloads.length === 0) downloads.append(el("p", null, "Nothing is downloading."));
          document.getElementById("cached-title").textContent =
            "Cached (" + s.objectCount + (s.objectCount === 1 ? " object, " : " objects, ") + size(s.cachedBytes) + ")";
          const cached = document.getElementById("cached");
          cached.replaceChildren(...s.objects.map(objectRow));
          if (s.objectCount === 0) cached.append(el("p", null, "The cache is empty."));
          else if (s.objects.length < s.objectCount) cached.append(el("p", "meta", "The " + s.objects.length + " used last are shown; mediacache ls lists all."));
        }
        async function refresh() {
          try {
            const response = await fetch("/status.json", { cache: "no-store" });
            render(await response.json());
          } catch (error) {
            note("the server did not answer: " + error);
          }
        }
        render(JSON.parse(document.getElementById("initial").textContent));
        document.getElementById("add").addEventListener("submit", (event) => {
          event.preventDefault();
          const urls = document.getElementById("urls");
          if (urls.value.trim() === "") return;
          act("/actions/add", { text: urls.value });
          urls.value = "";
        });
        setInterval(refresh, 1000);
        """#
}
