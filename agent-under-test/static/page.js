"use strict";
// A SmallWebRTC client in a page: the microphone goes up an Opus track, the agent's voice comes
// back on the same transceiver, RTVI messages on a data channel (pipecat's RTVI protocol 2.x).
const $ = (id) => document.getElementById(id);
let pc = null;
let mic = null;

function status(text) { $("status").textContent = text; }

function show(cls, text) {
  const li = document.createElement("li");
  li.className = cls;
  li.textContent = text;
  $("log").appendChild(li);
}

function newID() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function onRTVI(text) {
  if (typeof text !== "string" || text.startsWith("ping")) return;
  let m;
  try { m = JSON.parse(text); } catch { return; }
  if (!m || m.label !== "rtvi-ai") return;
  const d = m.data || {};
  switch (m.type) {
    case "bot-ready": status("connected: speak a few digits"); break;
    case "user-started-speaking": status("listening…"); break;
    case "user-transcription": if (d.final) show("user", d.text); break;
    case "bot-transcription": show("bot", d.text); break;
    case "bot-started-speaking": status("agent speaking…"); break;
    case "bot-stopped-speaking": status("your turn"); break;
  }
}

// gathered resolves when ICE gathering is complete (the agent takes no trickled candidates), or
// after ms with what there is.
function gathered(ms) {
  return new Promise((resolve) => {
    if (pc.iceGatheringState === "complete") return resolve();
    const done = () => { if (pc && pc.iceGatheringState !== "complete") return; resolve(); };
    pc.addEventListener("icegatheringstatechange", done);
    setTimeout(resolve, ms);
  });
}

async function call() {
  $("call").disabled = true;
  $("hangup").disabled = false;
  try {
    status("asking for the microphone…");
    mic = await navigator.mediaDevices.getUserMedia({ audio: true });
    pc = new RTCPeerConnection();
    pc.addTransceiver(mic.getAudioTracks()[0], { direction: "sendrecv", streams: [mic] });
    pc.ontrack = (e) => { $("remote").srcObject = e.streams[0] || new MediaStream([e.track]); };
    pc.onconnectionstatechange = () => {
      if (!pc) return;
      const st = pc.connectionState;
      if (st === "failed" || st === "closed") hangup("call ended (" + st + ")");
      else if (st !== "connected") status(st + "…");
    };
    const dc = pc.createDataChannel("rtvi-ai", { ordered: true });
    dc.onopen = () => dc.send(JSON.stringify({
      label: "rtvi-ai", type: "client-ready", id: newID(),
      data: { version: "2.1.0", about: { library: "callfleet-page" } },
    }));
    dc.onmessage = (e) => onRTVI(e.data);
    dc.onclose = () => { if (pc) hangup("call ended by the agent"); };
    status("connecting…");
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(5000);
    const resp = await fetch("/api/offer", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ sdp: pc.localDescription.sdp, type: "offer" }),
    });
    const body = await resp.json().catch(() => ({}));
    if (!resp.ok) throw new Error(body.error || "HTTP " + resp.status);
    await pc.setRemoteDescription({ type: "answer", sdp: body.sdp });
    $("call").dataset.pcId = body.pc_id;
  } catch (err) {
    hangup("error: " + err.message);
  }
}

function hangup(why) {
  if (pc) { pc.close(); pc = null; }
  if (mic) { mic.getTracks().forEach((t) => t.stop()); mic = null; }
  $("remote").srcObject = null;
  $("call").disabled = false;
  $("hangup").disabled = true;
  status(typeof why === "string" ? why : "hung up");
}

$("call").addEventListener("click", call);
$("hangup").addEventListener("click", () => hangup());
