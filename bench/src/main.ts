console.log("bench: not built yet");
