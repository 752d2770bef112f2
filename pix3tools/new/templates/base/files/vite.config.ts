import { defineConfig } from 'vite';
import pix3 from '@pix3/vite-plugin';

export default defineConfig({
  plugins: [pix3()],
});
