// Preloaded (node --require) into a child process and, through its inherited execArgv, into every worker
// thread it starts: each TCP connection, DNS lookup or fetch is written to $VTREE_NET_LOG and refused.
// Unix-socket connections are local IPC (tsx, which runs the child's TypeScript, talks to its own server
// that way): they are let through.
const fs = require("node:fs");
const net = require("node:net");
const dns = require("node:dns");
const { threadId } = require("node:worker_threads");

const note = (line) => fs.appendFileSync(process.env.VTREE_NET_LOG, `${line}\n`);
const refuse = (what) => {
  note(`attempt thread=${threadId} ${what}`);
  throw new Error(`network disabled in this test: ${what}`);
};

note(`guarded thread=${threadId}`);
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function(...args) {
  // net.connect hands over its normalized [options, callback] pair as the first argument.
  const options = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (typeof options === "object" && options !== null && typeof options.path === "string") {
    return connect.apply(this, args);
  }
  refuse(
    `connect ${typeof options === "object" && options !== null ? `${options.host}:${options.port}` : String(options)}`,
  );
};
dns.lookup = (host) => refuse(`dns ${host}`);
dns.promises.lookup = async (host) => refuse(`dns ${host}`);
globalThis.fetch = async (url) => refuse(`fetch ${String(url)}`);
