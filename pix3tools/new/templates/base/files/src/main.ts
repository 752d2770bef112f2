// The player: loads pix3project.yaml and runs its entry scene in #app.
import { startGame } from '@pix3/vite-plugin/player';

const app = document.querySelector<HTMLElement>('#app');
if (!app) {
  throw new Error('index.html has no #app element');
}
void startGame(app);
